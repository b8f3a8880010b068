/**
 * A scripted simulated user on 127.0.0.1, the same user for promptfoo and for
 * evalgate: as promptfoo's remote task (`POST /task` {task, instructions,
 * history} → {result, tokenUsage}, where promptfoo 0.121.20 asks its service to
 * play the user; PROMPTFOO_REMOTE_GENERATION_URL points it here) and as a
 * chat-completions server (`POST /v1/chat/completions`, evalgate's judge).
 * Instructions say "Say, in turn: first | second | …": the user's n-th
 * message is the n-th line (its own earlier messages, roles flipped, are the
 * `assistant` ones), and "###STOP###" once the lines run out.
 * No relative imports: scripts load it through scripts/fixture.mjs.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface UserServer {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** where promptfoo's remote task is: PROMPTFOO_REMOTE_GENERATION_URL */
  taskUrl: string
  /** where an OpenAI client points: evalgate's judge.baseUrl */
  baseUrl: string
  close(): Promise<void>
}

type Message = { role: string; content: string }

/** The user's next line, from the instructions and what it already said. */
export function scriptedUser(instructions: string, history: readonly Message[]): string {
  const lines = (/Say, in turn:([^\n]*)/.exec(instructions)?.[1] ?? '').split('|').map((l) => l.trim())
  const said = history.filter((m) => m.role === 'assistant').length
  return lines[said] || '###STOP###'
}

export async function startUserServer(): Promise<UserServer> {
  const server: Server = createServer((req, res) => {
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
    req.on('end', () => {
      const body = JSON.parse(text || '{}') as { instructions?: string; history?: Message[]; messages?: Message[] }
      let reply: unknown
      if (req.url === '/task') {
        reply = { result: scriptedUser(body.instructions ?? '', body.history ?? []), tokenUsage: { total: 0, prompt: 0, completion: 0 } }
      } else {
        // evalgate's prompt: the instructions in the system message, then the conversation flipped
        const [system, ...chat] = body.messages ?? []
        const content = scriptedUser(system?.content ?? '', chat)
        reply = {
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(reply))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    taskUrl: `${url}/task`,
    baseUrl: `${url}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
