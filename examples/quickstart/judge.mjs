#!/usr/bin/env node
// A deterministic stand-in for an LLM judge, so the quick start needs no network
// or API key: it reads {"prompt", "output", "rubric"} on stdin and scores the
// share of the rubric's "quoted terms" that the output contains.
let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (text += chunk))
process.stdin.on('end', () => {
  const { output, rubric } = JSON.parse(text)
  const terms = [...rubric.matchAll(/"([^"]+)"/g)].map((m) => m[1])
  const found = terms.filter((t) => output.toLowerCase().includes(t.toLowerCase()))
  const missing = terms.filter((t) => !found.includes(t))
  const score = terms.length ? found.length / terms.length : 0
  const reason = missing.length ? `missing ${missing.map((t) => `"${t}"`).join(', ')}` : 'covers every point of the rubric'
  process.stdout.write(JSON.stringify({ score: Math.round(score * 100) / 100, reason }))
})
