// A command judge: scores 1 when the output contains the rubric's last word, and
// echoes what it received (and JUDGE_TAG from its environment) in the reason.
let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (text += chunk))
process.stdin.on('end', () => {
  const { prompt, output, rubric } = JSON.parse(text)
  const word = rubric.trim().split(/\s+/).pop()
  const reason = JSON.stringify({ prompt, output, rubric, tag: process.env.JUDGE_TAG ?? null, home: process.env.SECRET_THING ?? null })
  process.stdout.write(JSON.stringify({ score: output.includes(word) ? 1 : 0, reason }) + '\n')
})
