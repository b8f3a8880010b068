// An agent behind HTTP: POST {"question"} → {"answer"}, continuing the trace of
// the request's traceparent header; spans flushed before the answer.
import { createServer } from 'node:http'
import { act, makeProvider, parentContext } from './agent.mjs'

export async function startAgentServer(tracesUrl, protocol) {
  const provider = makeProvider({ url: tracesUrl, protocol })
  const tracer = provider.getTracer('support')
  const server = createServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    const answer = await act(tracer, parentContext(req.headers.traceparent), JSON.parse(body).question)
    await provider.forceFlush()
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ answer }))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/ask`,
    close: async () => {
      await provider.shutdown()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}
