// A module agent: the provider is built when the module is imported (the OTEL_*
// variables are set by then); the trial's traceparent comes on the case argument.
import { act, makeProvider, parentContext } from './agent.mjs'

const provider = makeProvider()
const tracer = provider.getTracer('support')

export default async function agent(input, c) {
  const output = await act(tracer, parentContext(c.traceparent), input)
  await provider.forceFlush()
  return output
}
