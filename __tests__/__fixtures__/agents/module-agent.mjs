// A fake agent for the module target tests; the input picks the behaviour.
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
    case 'loop':
      for (;;);
    case 'exit':
      process.exitCode = 0
      process.exit(0)
      return 'still here'
    case 'result':
      return {
        output: 'Refund of $20.50 issued for A18.',
        toolCalls: [{ name: 'refund', args: { order_id: 'A18', amount: 20.5 } }],
        usage: { inputTokens: 812, outputTokens: 95, costUsd: 0.00021 },
        metadata: { model: 'support-mini' }
      }
    case 'timed':
      // an agent that times itself (without its own queueing, say) reports latencyMs
      return { output: 'done', latencyMs: 1234.5 }
    case 'openai-calls':
      return { output: 'ok', tool_calls: [{ type: 'function', function: { name: 'search_kb', arguments: '{"query":"returns"}' } }] }
    default:
      return String(input).toUpperCase()
  }
}
