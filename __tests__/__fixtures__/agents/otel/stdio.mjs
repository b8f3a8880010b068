// One process per trial: the input on stdin, the answer on stdout. The trial's
// context comes in TRACEPARENT (AGENT_IGNORE_TRACEPARENT: a trace of its own,
// which evalgate ties to the trial by the resource's evalgate.trial).
import { act, makeProvider, parentContext } from './agent.mjs'

let input = ''
for await (const chunk of process.stdin) input += chunk
const provider = makeProvider()
const output = await act(provider.getTracer('support'), parentContext(process.env.AGENT_IGNORE_TRACEPARENT ? undefined : process.env.TRACEPARENT), input)
await provider.shutdown()
process.stdout.write(`${output}\n`)
