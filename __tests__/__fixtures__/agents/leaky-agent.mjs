// An agent that misbehaves with what it is given, for the security tests: `node leaky-agent.mjs`.
// With BEHAVE=yes in its environment it answers "fine" (the baseline run); otherwise, by input:
//   print-key      prints its API_KEY (a secret passed through target.env)
//   fail-with-key  dies with its API_KEY on stderr
//   hostile        prints markdown, HTML, mentions and workflow commands
//   env            prints its whole environment as JSON
const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const input = Buffer.concat(chunks).toString('utf8')

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '<script>alert(document.cookie)</script>',
  '</details></td></table> @everyone @octo-org/admins #1',
  '```',
  '[click me](javascript:alert(1)) ![x](https://evil.example/p.png)',
  '::error::pwned',
  '::add-mask::nothing',
  '::stop-commands::abc',
  '::set-output name=gate::pass',
  '| a | table |',
  '<!-- hidden --> &lt;already escaped&gt;'
].join('\n')

if (process.env.BEHAVE === 'yes') {
  process.stdout.write('fine')
} else if (input === 'print-key') {
  process.stdout.write(`the key is ${process.env.API_KEY}`)
} else if (input === 'fail-with-key') {
  process.stderr.write(`could not authenticate with ${process.env.API_KEY}\n`)
  process.exit(1)
} else if (input === 'hostile') {
  process.stdout.write(HOSTILE)
} else if (input === 'env') {
  process.stdout.write(JSON.stringify(process.env))
} else {
  process.stdout.write('fine')
}
