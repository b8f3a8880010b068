// A long-lived worker: one JSON request per line, the trial's traceparent in it;
// its spans are flushed before each reply.
import { createInterface } from 'node:readline'
import { act, makeProvider, parentContext } from './agent.mjs'

const provider = makeProvider()
const tracer = provider.getTracer('support')
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line)
  void (async () => {
    const output = await act(tracer, parentContext(request.traceparent), request.input)
    await provider.forceFlush()
    process.stdout.write(`${JSON.stringify({ id: request.id, output })}\n`)
  })()
}
