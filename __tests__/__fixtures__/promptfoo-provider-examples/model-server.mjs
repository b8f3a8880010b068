// A model server on 127.0.0.1 for the provider parity run: it speaks OpenAI
// chat completions and embeddings, Azure OpenAI's deployments path,
// Anthropic Messages, Gemini generateContent, Bedrock Converse and
// InvokeModel, and Ollama's NDJSON /api/chat and /api/generate, and answers
// every request with the reply of the first rule of replies.json whose
// `when` strings all occur in the request's text (its messages, prompt or
// body), else "I do not know.". A rule's `usage: [input, output]` sets the
// token counts reported (11 and 7 otherwise), so that cost checks see a price. Both tools are pointed at it through
// promptfoo's own variables and keys, so both grade the same replies.
// Written for evalgate, used by scripts/promptfoo-parity.mjs.
import { createServer } from 'node:http'

export async function startModelServer(rules, port = 0) {
  const requests = []
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let body
      try {
        body = JSON.parse(raw)
      } catch {
        body = raw
      }
      requests.push({ method: req.method, url: req.url, headers: req.headers, body })
      const text = textOf(body)
      const rule = rules.find((r) => [].concat(r.when ?? []).every((w) => text.includes(w)))
      const reply = rule ? rule.reply : 'I do not know.'
      const [status, type, payload] = answer(req.url ?? '', body, reply, rule?.usage ?? [11, 7])
      res.writeHead(status, { 'content-type': type })
      res.end(typeof payload === 'string' ? payload : JSON.stringify(payload))
    })
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}`
  return { url, requests, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** promptfoo's own variables that point every provider of the examples at the server at `url` (Bedrock has none: the examples name an `endpoint`). */
export function promptfooEnv(url) {
  return {
    OPENAI_BASE_URL: `${url}/v1`,
    OPENAI_API_KEY: 'sk-parity',
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-ant-parity',
    GOOGLE_API_BASE_URL: url,
    GEMINI_API_KEY: 'gemini-parity',
    AZURE_OPENAI_API_BASE_URL: url,
    AZURE_API_KEY: 'azure-parity',
    OLLAMA_BASE_URL: url,
    AWS_ACCESS_KEY_ID: 'AKIAPARITY',
    AWS_SECRET_ACCESS_KEY: 'parity-secret'
  }
}

/** Every string in the request, joined: what rules look for. */
function textOf(value) {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(textOf).join('\n')
  if (value && typeof value === 'object') return Object.values(value).map(textOf).join('\n')
  return ''
}

function answer(url, body, reply, [input, output]) {
  const usage = { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }
  const path = url.split('?')[0]
  if (path.endsWith('/embeddings')) {
    const inputs = [].concat(body.input ?? [])
    return [200, 'application/json', { data: inputs.map((t, index) => ({ index, embedding: vector(t) })), usage }]
  }
  if (path.endsWith('/chat/completions'))
    return [
      200,
      'application/json',
      {
        id: 'c',
        object: 'chat.completion',
        model: body.model ?? 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
        usage
      }
    ]
  if (path.endsWith('/v1/messages') || path.endsWith('/invoke'))
    return [
      200,
      'application/json',
      {
        id: 'msg',
        type: 'message',
        role: 'assistant',
        model: body.model ?? 'm',
        content: [{ type: 'text', text: reply }],
        stop_reason: 'end_turn',
        usage: { input_tokens: input, output_tokens: output }
      }
    ]
  if (path.endsWith(':generateContent'))
    return [
      200,
      'application/json',
      {
        candidates: [{ content: { role: 'model', parts: [{ text: reply }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output }
      }
    ]
  if (path.endsWith('/converse'))
    return [
      200,
      'application/json',
      {
        output: { message: { role: 'assistant', content: [{ text: reply }] } },
        stopReason: 'end_turn',
        usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
        metrics: { latencyMs: 1 }
      }
    ]
  if (path === '/api/chat')
    return [
      200,
      'application/x-ndjson',
      `${JSON.stringify({ message: { role: 'assistant', content: reply }, done: false })}\n${JSON.stringify({ message: { role: 'assistant', content: '' }, done: true, prompt_eval_count: input, eval_count: output })}\n`
    ]
  if (path === '/api/generate')
    return [200, 'application/x-ndjson', `${JSON.stringify({ response: reply, done: true, prompt_eval_count: input, eval_count: output })}\n`]
  // any other path: an http provider's own API
  return [200, 'application/json', { output: reply }]
}

/** A small deterministic embedding: letter counts, so that texts sharing words are near. */
function vector(text) {
  const v = new Array(26).fill(0)
  for (const c of String(text).toLowerCase()) {
    const i = c.charCodeAt(0) - 97
    if (i >= 0 && i < 26) v[i]++
  }
  return v
}

// `node model-server.mjs replies.json PORT`: serves until killed, printing "listening <url>" once up
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const { readFileSync } = await import('node:fs')
  const rules = JSON.parse(readFileSync(process.argv[2], 'utf8'))
  const port = Number(process.argv[3] ?? 0)
  const started = await startModelServer(rules, port)
  process.stdout.write(`listening ${started.url}\n`)
}
