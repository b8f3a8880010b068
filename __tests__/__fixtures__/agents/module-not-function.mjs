export default { answer: 42 }
