/**
 * A fake GitHub on 127.0.0.1 for end-to-end tests with the real @actions/github
 * and @actions/artifact clients. It speaks the subset of the REST API evalgate
 * uses (repository, workflow runs, run artifacts and their zip download,
 * workflows, issue comments with Link pagination, pulls, the authenticated user and the
 * GraphQL `viewer`, commit comparison over a small commit table, tags, file
 * contents at a ref) and the artifact upload protocol (twirp CreateArtifact /
 * FinalizeArtifact at ACTIONS_RESULTS_URL, then an Azure block-blob upload to
 * the signed URL).
 *
 * Its state is plain data the test scripts; every request is logged.
 */
import { createHash, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { PassThrough } from 'node:stream'

export interface FakeRun {
  id: number
  workflow_id: number
  path: string
  head_branch: string
  head_sha: string
  event: string
  /** full_name of the repository the run's commit comes from (a fork's for fork PRs) */
  head_repository: string
  created_at: string
  status: string
  conclusion: string | null
  pull_requests: Array<{ number: number }>
}

export interface FakeArtifact {
  id: number
  run_id: number
  name: string
  expired: boolean
  created_at: string
  bytes: Buffer
  digest: string
}

export interface FakeUser {
  login: string
  type: 'Bot' | 'User'
  id: number
}

/** A user as tests name one: without an id, the server gives each login its own. */
export type UserLike = Omit<FakeUser, 'id'> & { id?: number }

export interface FakeComment {
  id: number
  issue_number: number
  body: string
  user: FakeUser
  created_at: string
  updated_at: string
}

export interface FakePull {
  number: number
  state: 'open' | 'closed'
  head: { sha: string; ref: string; owner: string }
  base: { sha: string; ref: string }
}

export interface LoggedRequest {
  method: string
  path: string
  query: Record<string, string>
  authorization: string | undefined
  status: number
}

interface PendingUpload {
  runId: number
  name: string
  blobPath: string
}

/** The author of the workflow GITHUB_TOKEN's comments on github.com (its user id is public and fixed). */
export const GITHUB_ACTIONS_BOT: FakeUser = { login: 'github-actions[bot]', type: 'Bot', id: 41898282 }

const TWIRP = '/twirp/github.actions.results.api.v1.ArtifactService/'

/** The JWT of ACTIONS_RUNTIME_TOKEN: the artifact client reads the run's backend ids from its `scp` claim. */
export function runtimeToken(runId: number): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ scp: `Actions.GenericRead:x Actions.Results:run-${runId}:job-${runId}` })}.sig`
}

function runIdOfBackend(backendId: unknown): number {
  const m = /^run-(\d+)$/.exec(String(backendId))
  if (!m) throw new Error(`unknown workflow run backend id ${String(backendId)}`)
  return Number(m[1])
}

interface Archiver {
  append(source: Buffer | string, data: { name: string; date?: Date }): Archiver
  finalize(): Promise<void>
  pipe(stream: NodeJS.WritableStream): void
  on(event: 'error', listener: (err: Error) => void): Archiver
}

const archiver = createRequire(import.meta.url)('archiver') as (format: 'zip', options?: Record<string, unknown>) => Archiver

/** A real zip (built with archiver, as @actions/artifact builds its uploads) of the given files. */
export async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const archive = archiver('zip', { zlib: { level: 6 } })
  const out = new PassThrough()
  const chunks: Buffer[] = []
  out.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise<void>((resolve, reject) => {
    out.on('end', resolve)
    archive.on('error', reject)
  })
  archive.pipe(out)
  for (const [name, content] of Object.entries(files)) archive.append(content, { name, date: new Date('2026-01-01T00:00:00Z') })
  await archive.finalize()
  await done
  return Buffer.concat(chunks)
}

export class GitHubServer {
  readonly owner: string
  readonly repo: string
  url = ''
  defaultBranch = 'main'
  workflows: Array<{ id: number; path: string }> = [{ id: 7, path: '.github/workflows/evals.yml' }]
  runs: FakeRun[] = []
  artifacts: FakeArtifact[] = []
  comments: FakeComment[] = []
  pulls: FakePull[] = []
  /** who GET /user says the token is (a personal token); null: 403, as for GITHUB_TOKEN and every app installation token */
  user: FakeUser | null = null
  /** who the token comments as, and who the GraphQL `viewer` is */
  commenter: FakeUser = GITHUB_ACTIONS_BOT
  /** false: POST /graphql answers 404, as where GraphQL is not served */
  graphql = true
  /** false: comments are refused with 403, as with a fork PR's read-only token */
  canWrite = true
  /** the status CreateArtifact answers instead of accepting an upload (the artifact service down); null: uploads work */
  uploadFailure: number | null = null
  requests: LoggedRequest[] = []
  /** called with every request as it is answered, e.g. to order it among other events */
  onRequest: ((request: LoggedRequest) => void) | null = null
  /**
   * The commits of each branch, oldest first (the last is its head): what the
   * compare endpoint answers from. addRun puts a run's commit on its branch
   * unless told the run's ref is not that branch.
   */
  branches = new Map<string, string[]>()
  /** tag name → commit (a tag's commit need be on no branch) */
  tags = new Map<string, string>()
  /** every commit a run was made of, on a branch or not: what stays comparable after its tag is deleted */
  commits = new Set<string>()
  /** ref (a commit or a branch name) → path → text: what the contents endpoint serves */
  files = new Map<string, Map<string, string>>()
  /** how long CreateArtifact waits before it answers, as a remote results service does */
  uploadDelayMs = 0
  /** commit → when it was committed (ISO 8601): what GET /commits/{ref} answers; others are 404 */
  commitDates = new Map<string, string>()

  private server: Server | null = null
  private nextId = 1000
  private pending = new Map<string, PendingUpload>()
  private blocks = new Map<string, Map<string, Buffer>>()
  private blobs = new Map<string, Buffer>()
  private uploadedIds = new Set<number>()
  private userIds = new Map<string, number>()
  /** artifact id → the status its download answers instead of the bytes, at the REST redirect or at the blob */
  private downloadFailures = new Map<number, { status: number; at: 'api' | 'blob' }>()

  constructor(repository = 'acme/bot') {
    const [owner, repo] = repository.split('/')
    this.owner = owner!
    this.repo = repo!
  }

  get repository(): string {
    return `${this.owner}/${this.repo}`
  }

  id(): number {
    return this.nextId++
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.send(req, res, 500, { message: String((err as Error)?.stack ?? err) })
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  async close(): Promise<void> {
    if (!this.server) return
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server!.close(() => resolve()))
  }

  /** Forget runs, artifacts, comments, pulls and the log; keep the address. */
  reset(): void {
    this.runs = []
    this.artifacts = []
    this.comments = []
    this.pulls = []
    this.user = null
    this.commenter = GITHUB_ACTIONS_BOT
    this.canWrite = true
    this.uploadFailure = null
    this.graphql = true
    this.requests = []
    this.downloadFailures.clear()
    this.branches.clear()
    this.tags.clear()
    this.commits.clear()
    this.files.clear()
    this.uploadDelayMs = 0
    this.commitDates.clear()
    this.onRequest = null
    this.defaultBranch = 'main'
  }

  /**
   * A run of the first workflow. Its commit is put on its branch's history
   * (a push, schedule or dispatch runs at the branch's head) unless
   * `onBranch: false` says its ref was something else of that name (a tag).
   */
  addRun(run: Partial<FakeRun> & { head_sha: string }, options: { onBranch?: boolean } = {}): FakeRun {
    const full: FakeRun = {
      id: this.id(),
      workflow_id: this.workflows[0]!.id,
      path: this.workflows[0]!.path,
      head_branch: this.defaultBranch,
      event: 'push',
      head_repository: this.repository,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, this.runs.length)).toISOString(),
      status: 'completed',
      conclusion: 'success',
      pull_requests: [],
      ...run
    }
    this.runs.push(full)
    this.commits.add(full.head_sha)
    if (options.onBranch !== false && full.head_repository === this.repository) this.addCommit(full.head_branch, full.head_sha)
    return full
  }

  /** Put `sha` at the head of `branch` (once). */
  addCommit(branch: string, sha: string): void {
    const history = this.branches.get(branch) ?? []
    if (!history.includes(sha)) history.push(sha)
    this.branches.set(branch, history)
  }

  /** Serve `text` as `path` at `ref` (a commit or a branch name). */
  addFile(ref: string, path: string, text: string): void {
    const files = this.files.get(ref) ?? new Map<string, string>()
    files.set(path, text)
    this.files.set(ref, files)
  }

  /** Make the download of an artifact answer `status`: at the REST endpoint that redirects, or at the blob it redirects to. */
  failDownload(artifactId: number, status: number, at: 'api' | 'blob' = 'blob'): void {
    this.downloadFailures.set(artifactId, { status, at })
  }

  /** The id GitHub gives a login: fixed per login for the server's life. */
  userId(login: string): number {
    if (!this.userIds.has(login)) this.userIds.set(login, 5000 + this.userIds.size)
    return this.userIds.get(login)!
  }

  addArtifact(runId: number, name: string, bytes: Buffer, options: { expired?: boolean } = {}): FakeArtifact {
    const artifact: FakeArtifact = {
      id: this.id(),
      run_id: runId,
      name,
      expired: options.expired ?? false,
      created_at: new Date().toISOString(),
      bytes,
      digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`
    }
    this.artifacts.push(artifact)
    return artifact
  }

  addComment(issueNumber: number, body: string, author: UserLike = { login: 'someone', type: 'User' }): FakeComment {
    const now = new Date().toISOString()
    const user: FakeUser = { ...author, id: author.id ?? this.userId(author.login) }
    const comment: FakeComment = { id: this.id(), issue_number: issueNumber, body, user, created_at: now, updated_at: now }
    this.comments.push(comment)
    return comment
  }

  /** Artifacts uploaded through the twirp protocol, in upload order. */
  uploaded(runId?: number): FakeArtifact[] {
    return this.artifacts.filter((a) => this.uploadedIds.has(a.id) && (runId === undefined || a.run_id === runId))
  }

  commentsOn(issueNumber: number): FakeComment[] {
    return this.comments.filter((c) => c.issue_number === issueNumber)
  }

  // ---- HTTP plumbing ------------------------------------------------------

  private send(req: IncomingMessage, res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
    this.log(req, status)
    const text = body === undefined ? '' : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body)
    res.writeHead(status, { ...(typeof body === 'object' && !Buffer.isBuffer(body) ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...headers })
    res.end(text)
  }

  private log(req: IncomingMessage, status: number): void {
    const url = new URL(req.url ?? '/', this.url)
    const entry: LoggedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      status
    }
    this.requests.push(entry)
    this.onRequest?.(entry)
  }

  private async body(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  private page<T>(req: IncomingMessage, res: ServerResponse, items: T[], wrap?: (items: T[]) => unknown): void {
    const url = new URL(req.url ?? '/', this.url)
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30))
    const page = Number(url.searchParams.get('page') ?? 1)
    const last = Math.max(1, Math.ceil(items.length / perPage))
    const slice = items.slice((page - 1) * perPage, page * perPage)
    const link = (p: number) => {
      const u = new URL(url)
      u.searchParams.set('page', String(p))
      u.searchParams.set('per_page', String(perPage))
      return u.toString()
    }
    const links: string[] = []
    if (page < last) links.push(`<${link(page + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`)
    if (page > 1) links.push(`<${link(1)}>; rel="first"`, `<${link(page - 1)}>; rel="prev"`)
    this.send(req, res, 200, wrap ? wrap(slice) : slice, links.length ? { link: links.join(', ') } : {})
  }

  private runJson(run: FakeRun) {
    const [owner] = run.head_repository.split('/')
    return {
      id: run.id,
      name: 'evals',
      head_branch: run.head_branch,
      head_sha: run.head_sha,
      path: run.path,
      event: run.event,
      status: run.status,
      conclusion: run.conclusion,
      workflow_id: run.workflow_id,
      created_at: run.created_at,
      updated_at: run.created_at,
      html_url: `https://github.com/${this.repository}/actions/runs/${run.id}`,
      pull_requests: run.pull_requests,
      head_repository: { full_name: run.head_repository, owner: { login: owner } },
      repository: { full_name: this.repository, owner: { login: this.owner } }
    }
  }

  private artifactJson(a: FakeArtifact) {
    const run = this.runs.find((r) => r.id === a.run_id)
    return {
      id: a.id,
      node_id: `A_${a.id}`,
      name: a.name,
      size_in_bytes: a.bytes.length,
      url: `${this.url}/repos/${this.repository}/actions/artifacts/${a.id}`,
      archive_download_url: `${this.url}/repos/${this.repository}/actions/artifacts/${a.id}/zip`,
      expired: a.expired,
      created_at: a.created_at,
      updated_at: a.created_at,
      expires_at: a.created_at,
      digest: a.digest,
      workflow_run: run ? { id: run.id, head_branch: run.head_branch, head_sha: run.head_sha } : null
    }
  }

  private pullJson(p: FakePull) {
    return {
      number: p.number,
      state: p.state,
      head: { sha: p.head.sha, ref: p.head.ref, label: `${p.head.owner}:${p.head.ref}`, repo: { full_name: `${p.head.owner}/${this.repo}` } },
      base: { sha: p.base.sha, ref: p.base.ref, repo: { full_name: this.repository } }
    }
  }

  private commentJson(c: FakeComment) {
    return {
      id: c.id,
      body: c.body,
      user: c.user,
      created_at: c.created_at,
      updated_at: c.updated_at,
      html_url: `https://github.com/${this.repository}/pull/${c.issue_number}#issuecomment-${c.id}`
    }
  }

  // ---- routes -------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url)
    const method = req.method ?? 'GET'
    const p = url.pathname

    if (p.startsWith(TWIRP) && method === 'POST') return this.twirp(req, res, p.slice(TWIRP.length))
    if (p.startsWith('/devstoreaccount1/') && method === 'PUT') return this.blobPut(req, res, url)
    let m: RegExpExecArray | null
    if ((m = /^\/blobs\/(\d+)\.zip$/.exec(p)) && method === 'GET') {
      const artifact = this.artifacts.find((a) => a.id === Number(m![1]))
      if (!artifact || url.searchParams.get('sig') !== 'download-signature') return this.send(req, res, 404, 'BlobNotFound')
      const failure = this.downloadFailures.get(artifact.id)
      if (failure?.at === 'blob') return this.send(req, res, failure.status, 'ServerBusy')
      return this.send(req, res, 200, artifact.bytes, { 'content-type': 'application/zip', 'content-disposition': `attachment; filename=${artifact.name}.zip` })
    }

    if (!req.headers.authorization) return this.send(req, res, 401, { message: 'Requires authentication' })
    if (p === '/user' && method === 'GET') {
      return this.user ? this.send(req, res, 200, this.user) : this.send(req, res, 403, { message: 'Resource not accessible by integration' })
    }
    if (p === '/graphql' && method === 'POST') return this.graphqlQuery(req, res)
    const prefix = `/repos/${this.owner}/${this.repo}`
    if (!p.startsWith(prefix)) return this.send(req, res, 404, { message: 'Not Found' })
    const rest = p.slice(prefix.length)

    if (rest === '' && method === 'GET') {
      return this.send(req, res, 200, { name: this.repo, full_name: this.repository, default_branch: this.defaultBranch, owner: { login: this.owner } })
    }
    if (rest === '/actions/workflows' && method === 'GET') {
      const list = this.workflows.map((w) => ({ id: w.id, name: w.path.split('/').pop(), path: w.path, state: 'active' }))
      return this.page(req, res, list, (items) => ({ total_count: list.length, workflows: items }))
    }
    if ((m = /^\/actions\/workflows\/([^/]+)$/.exec(rest)) && method === 'GET') {
      const key = decodeURIComponent(m[1]!)
      const workflow = this.workflows.find((w) => String(w.id) === key || w.path.split('/').pop() === key)
      return workflow
        ? this.send(req, res, 200, { id: workflow.id, name: workflow.path.split('/').pop(), path: workflow.path, state: 'active' })
        : this.send(req, res, 404, { message: 'Not Found' })
    }
    if ((m = /^\/actions\/workflows\/([^/]+)\/runs$/.exec(rest)) && method === 'GET') {
      const key = decodeURIComponent(m[1]!)
      const workflow = this.workflows.find((w) => String(w.id) === key || w.path.split('/').pop() === key)
      if (!workflow) return this.send(req, res, 404, { message: 'Not Found' })
      const q = url.searchParams
      const runs = this.runs
        .filter((r) => r.workflow_id === workflow.id)
        .filter((r) => !q.get('branch') || r.head_branch === q.get('branch'))
        .filter((r) => !q.get('event') || r.event === q.get('event'))
        .filter((r) => !q.get('head_sha') || r.head_sha === q.get('head_sha'))
        .filter((r) => !q.get('status') || r.status === q.get('status') || r.conclusion === q.get('status'))
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id)
      return this.page(req, res, runs, (items) => ({ total_count: runs.length, workflow_runs: items.map((r) => this.runJson(r)) }))
    }
    if ((m = /^\/actions\/runs\/(\d+)$/.exec(rest)) && method === 'GET') {
      const run = this.runs.find((r) => r.id === Number(m![1]))
      return run ? this.send(req, res, 200, this.runJson(run)) : this.send(req, res, 404, { message: 'Not Found' })
    }
    if ((m = /^\/actions\/runs\/(\d+)\/artifacts$/.exec(rest)) && method === 'GET') {
      const name = url.searchParams.get('name')
      const list = this.artifacts.filter((a) => a.run_id === Number(m![1]) && (!name || a.name === name)).sort((a, b) => b.id - a.id)
      return this.page(req, res, list, (items) => ({ total_count: list.length, artifacts: items.map((a) => this.artifactJson(a)) }))
    }
    if ((m = /^\/actions\/artifacts\/(\d+)\/zip$/.exec(rest)) && method === 'GET') {
      const artifact = this.artifacts.find((a) => a.id === Number(m![1]))
      if (!artifact) return this.send(req, res, 404, { message: 'Not Found' })
      if (artifact.expired) return this.send(req, res, 410, { message: 'Artifact has expired' })
      const failure = this.downloadFailures.get(artifact.id)
      if (failure?.at === 'api')
        return this.send(req, res, failure.status, { message: failure.status === 410 ? 'Artifact has expired' : 'Service Unavailable' })
      return this.send(req, res, 302, undefined, { location: `${this.url}/blobs/${artifact.id}.zip?sig=download-signature` })
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const issue = Number(m[1])
      if (method === 'GET')
        return this.page(
          req,
          res,
          this.commentsOn(issue).map((c) => this.commentJson(c))
        )
      if (method === 'POST') {
        if (!this.canWrite) return this.send(req, res, 403, { message: 'Resource not accessible by integration' })
        const { body } = JSON.parse((await this.body(req)).toString()) as { body: string }
        return this.send(req, res, 201, this.commentJson(this.addComment(issue, body, this.commenter)))
      }
    }
    if ((m = /^\/issues\/comments\/(\d+)$/.exec(rest)) && method === 'PATCH') {
      const comment = this.comments.find((c) => c.id === Number(m![1]))
      if (!comment) return this.send(req, res, 404, { message: 'Not Found' })
      if (!this.canWrite) return this.send(req, res, 403, { message: 'Resource not accessible by integration' })
      comment.body = (JSON.parse((await this.body(req)).toString()) as { body: string }).body
      comment.updated_at = new Date().toISOString()
      return this.send(req, res, 200, this.commentJson(comment))
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(rest)) && method === 'GET') {
      const pull = this.pulls.find((x) => x.number === Number(m![1]))
      return pull ? this.send(req, res, 200, this.pullJson(pull)) : this.send(req, res, 404, { message: 'Not Found' })
    }
    if (rest === '/pulls' && method === 'GET') {
      const head = url.searchParams.get('head')
      const state = url.searchParams.get('state') ?? 'open'
      const list = this.pulls.filter((x) => (state === 'all' || x.state === state) && (!head || `${x.head.owner}:${x.head.ref}` === head))
      return this.page(
        req,
        res,
        list.map((x) => this.pullJson(x))
      )
    }
    // octokit sends the ref "tags/<name>" as one encoded path segment
    if ((m = /^\/git\/ref\/(heads|tags)\/(.+)$/.exec(decodeURIComponent(rest))) && method === 'GET') {
      const name = m[2]!
      const history = this.branches.get(name)
      const target = m[1] === 'tags' ? this.tags.get(name) : history?.[history.length - 1]
      return target
        ? this.send(req, res, 200, { ref: `refs/${m[1]}/${name}`, object: { type: 'commit', sha: target } })
        : this.send(req, res, 404, { message: 'Not Found' })
    }
    if ((m = /^\/commits\/([^/]+)$/.exec(rest)) && method === 'GET') {
      const ref = decodeURIComponent(m[1]!)
      const date = this.commitDates.get(ref)
      if (!date) return this.send(req, res, 422, { message: `No commit found for SHA: ${ref}`, status: '422' })
      const person = { name: 'Ada', email: 'ada@example.com', date }
      return this.send(req, res, 200, { sha: ref, commit: { author: person, committer: person, message: 'a commit' }, parents: [], files: [] })
    }
    if ((m = /^\/compare\/(.+)$/.exec(rest)) && method === 'GET') return this.compare(req, res, decodeURIComponent(m[1]!))
    if ((m = /^\/contents\/(.+)$/.exec(rest)) && method === 'GET') {
      const file = decodeURIComponent(m[1]!)
      const ref = url.searchParams.get('ref') ?? this.defaultBranch
      const text = this.files.get(ref)?.get(file)
      if (text === undefined) return this.send(req, res, 404, { message: 'Not Found' })
      // GitHub wraps the base64 at 60 characters
      const content = Buffer.from(text).toString('base64').replace(/.{60}/g, '$&\n')
      const blob = createHash('sha1')
        .update(`blob ${Buffer.byteLength(text)}\0${text}`)
        .digest('hex')
      return this.send(req, res, 200, {
        type: 'file',
        encoding: 'base64',
        size: Buffer.byteLength(text),
        name: file.split('/').pop(),
        path: file,
        sha: blob,
        content
      })
    }
    return this.send(req, res, 404, { message: `Not Found: ${method} ${p}` })
  }

  /** The GraphQL queries evalgate makes: only `viewer { databaseId login }`. */
  private async graphqlQuery(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { query } = JSON.parse((await this.body(req)).toString() || '{}') as { query?: string }
    if (!this.graphql) return this.send(req, res, 404, { message: 'Not Found' })
    if (!/\bviewer\b/.test(query ?? '')) return this.send(req, res, 200, { errors: [{ message: `this fake answers only viewer queries: ${query}` }] })
    const viewer = this.user ?? this.commenter
    return this.send(req, res, 200, { data: { viewer: { login: viewer.login, databaseId: viewer.id } } })
  }

  /**
   * A commit the compare endpoint names: a tag, a branch (its head), or a
   * commit some branch or tag holds. A short name is tried as a tag before a
   * branch, as `git rev-parse` does: a tag that shares a branch's name wins.
   */
  private resolve(ref: string): { sha: string; history: string[] } | null {
    const tag = this.tags.get(ref)
    if (tag) return { sha: tag, history: this.historyOf(tag) }
    const branch = this.branches.get(ref)
    if (branch?.length) return { sha: branch[branch.length - 1]!, history: branch }
    const known = this.commits.has(ref) || [...this.tags.values(), ...[...this.branches.values()].flat()].includes(ref)
    return known ? { sha: ref, history: this.historyOf(ref) } : null
  }

  /** The commits up to `sha` on the branch that holds it (just itself when none does, as for a tag's own commit). */
  private historyOf(sha: string): string[] {
    for (const history of this.branches.values()) {
      const at = history.indexOf(sha)
      if (at !== -1) return history.slice(0, at + 1)
    }
    return [sha]
  }

  /** GET /compare/BASE...HEAD: how HEAD stands to BASE — identical, behind (an ancestor of it), ahead, diverged. */
  private compare(req: IncomingMessage, res: ServerResponse, basehead: string): void {
    const [baseRef, headRef] = basehead.split('...')
    const base = baseRef ? this.resolve(baseRef) : null
    const head = headRef ? this.resolve(headRef) : null
    if (!base || !head) return this.send(req, res, 404, { message: 'Not Found' })
    const status = base.sha === head.sha ? 'identical' : base.history.includes(head.sha) ? 'behind' : head.history.includes(base.sha) ? 'ahead' : 'diverged'
    const behindBy = status === 'behind' ? base.history.length - 1 - base.history.indexOf(head.sha) : 0
    const aheadBy = status === 'ahead' ? head.history.length - 1 - head.history.indexOf(base.sha) : status === 'diverged' ? 1 : 0
    return this.send(req, res, 200, {
      status,
      ahead_by: aheadBy,
      behind_by: behindBy,
      total_commits: aheadBy,
      base_commit: { sha: base.sha },
      commits: [],
      files: []
    })
  }

  private async twirp(req: IncomingMessage, res: ServerResponse, rpc: string): Promise<void> {
    if (!/^Bearer /.test(req.headers.authorization ?? '')) return this.send(req, res, 401, { code: 'unauthenticated', msg: 'no token' })
    const input = JSON.parse((await this.body(req)).toString() || '{}') as Record<string, unknown>
    if (rpc === 'CreateArtifact') {
      if (this.uploadDelayMs) await new Promise((resolve) => setTimeout(resolve, this.uploadDelayMs))
      if (this.uploadFailure !== null) return this.send(req, res, this.uploadFailure, { code: 'internal', msg: 'the artifact service is unavailable' })
      const runId = runIdOfBackend(input.workflow_run_backend_id)
      const name = String(input.name)
      if (this.artifacts.some((a) => a.run_id === runId && a.name === name) || [...this.pending.values()].some((u) => u.runId === runId && u.name === name)) {
        return this.send(req, res, 409, { code: 'already_exists', msg: 'an artifact with this name already exists on the workflow run' })
      }
      const blobPath = `/devstoreaccount1/actions-results/${randomUUID()}/${encodeURIComponent(name)}.zip`
      this.pending.set(`${runId}/${name}`, { runId, name, blobPath })
      return this.send(req, res, 200, { ok: true, signed_upload_url: `${this.url}${blobPath}?sig=upload-signature&se=2099-01-01` })
    }
    if (rpc === 'FinalizeArtifact') {
      const runId = runIdOfBackend(input.workflow_run_backend_id)
      const key = `${runId}/${String(input.name)}`
      const upload = this.pending.get(key)
      if (!upload) return this.send(req, res, 404, { code: 'not_found', msg: 'no artifact is being uploaded under this name' })
      this.pending.delete(key)
      const bytes = this.blobs.get(upload.blobPath) ?? Buffer.alloc(0)
      if (String(input.size) !== String(bytes.length))
        return this.send(req, res, 400, { code: 'invalid_argument', msg: `size ${String(input.size)} does not match the ${bytes.length} bytes uploaded` })
      const artifact = this.addArtifact(runId, upload.name, bytes)
      if (input.hash !== undefined && input.hash !== artifact.digest) return this.send(req, res, 400, { code: 'invalid_argument', msg: 'hash mismatch' })
      this.uploadedIds.add(artifact.id)
      return this.send(req, res, 200, { ok: true, artifact_id: String(artifact.id) })
    }
    return this.send(req, res, 404, { code: 'bad_route', msg: `no handler for ${rpc}` })
  }

  /** Azure block blobs: Put Block (comp=block), Put Block List (comp=blocklist), or a whole Put Blob. */
  private async blobPut(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.searchParams.get('sig') !== 'upload-signature') return this.send(req, res, 403, 'AuthenticationFailed')
    const body = await this.body(req)
    const blobPath = url.pathname
    const headers = {
      etag: `"0x${Date.now().toString(16)}"`,
      'last-modified': new Date().toUTCString(),
      'x-ms-request-id': randomUUID(),
      'x-ms-version': '2025-01-05',
      'x-ms-request-server-encrypted': 'true'
    }
    const comp = url.searchParams.get('comp')
    if (comp === 'block') {
      const blocks = this.blocks.get(blobPath) ?? new Map<string, Buffer>()
      blocks.set(url.searchParams.get('blockid') ?? '', body)
      this.blocks.set(blobPath, blocks)
      return this.send(req, res, 201, undefined, headers)
    }
    if (comp === 'blocklist') {
      const ids = [...body.toString().matchAll(/<(?:Latest|Committed|Uncommitted)>([^<]*)<\//g)].map((x) => x[1]!)
      const blocks = this.blocks.get(blobPath) ?? new Map<string, Buffer>()
      this.blobs.set(blobPath, Buffer.concat(ids.map((id) => blocks.get(id) ?? Buffer.alloc(0))))
      return this.send(req, res, 201, undefined, headers)
    }
    this.blobs.set(blobPath, body)
    return this.send(req, res, 201, undefined, headers)
  }
}
