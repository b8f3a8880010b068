// A fake in-process agent for the module target tests; the input picks the behaviour.
export default async function agent(input, evalCase) {
  switch (input?.mode ?? input) {
    case 'object':
      return { answer: 42, caseId: evalCase.id }
    case 'throw':
      throw new Error('upstream model returned 500')
    case 'undefined':
      return undefined
    case 'hang':
      return new Promise(() => {})
    default:
      return String(input).toUpperCase()
  }
}
