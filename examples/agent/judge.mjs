#!/usr/bin/env node
// A deterministic stand-in for an LLM judge, so the example needs no network or
// API key: it reads {"prompt", "output", "rubric", "toolCalls"} on stdin
// (toolCalls only with includeToolCalls: true) and scores 1 when every tool the
// rubric names in `backquotes` was called, 0.2 otherwise.
let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (text += chunk))
process.stdin.on('end', () => {
  const { rubric, toolCalls = [] } = JSON.parse(text)
  const tools = [...rubric.matchAll(/`([a-z_]+)`/g)].map((m) => m[1])
  const missing = tools.filter((t) => !toolCalls.some((c) => c.name === t))
  const reason = missing.length ? `did not call ${missing.join(', ')}` : `called ${tools.join(', ')} before answering`
  process.stdout.write(JSON.stringify({ score: missing.length ? 0.2 : 1, reason }))
})
