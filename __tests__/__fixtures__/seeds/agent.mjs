// The seed datasets' agent: right on three cases, wrong on two.
const answers = {
  'What is 2+2?': '4',
  'What is the capital of France?': 'The capital of France is Paris.',
  'Return Ada as JSON': '{"born": 1815, "name": "Ada"}',
  'Return Alan as JSON': '{"name": "Alan", "born": 1954}',
  'What is the capital of Spain?': 'Barcelona'
}
export default (input) => answers[input] ?? 'unknown'
