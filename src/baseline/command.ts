/**
 * `evalgate baseline pull`: downloads the default branch's latest
 * baseline record of a workflow, so that a developer can compare before
 * pushing (`evalgate run --baseline baseline.json`). The forge is a source
 * module (sources.ts); this is the command around it.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { readText } from '../config/dataset.js'
import { parseConfig } from '../config/load.js'
import { errorMessage, UsageError } from '../errors.js'
import { recordArtifactName } from '../github/artifacts/names.js'
import { WORKFLOW_FILE } from '../init/templates.js'
import { makeDir } from '../util/dirs.js'
import { originUrl } from '../util/git.js'
import { writeJsonAtomic } from '../util/json-writer.js'
import { SOURCES, sourceOfRemote } from './sources.js'

export const BASELINE_USAGE = `  baseline pull [-c evalgate.yml] [--workflow ${path.posix.basename(WORKFLOW_FILE)}] [--out baseline.json]
      [--branch NAME] [--repo OWNER/NAME] [--from github|gitlab] [--artifact-name NAME] [--job NAME]
                          download the default branch's latest baseline record of that workflow
                          (GitLab: of that job, default evals), for a local run --baseline
                          (GitHub: GITHUB_TOKEN, GH_TOKEN or gh auth token; GitLab: GITLAB_TOKEN)`

interface Stream {
  write(text: string): unknown
}

export interface BaselineIO {
  stdout: Stream
  stderr: Stream
  env: NodeJS.ProcessEnv
  /** the folder the command runs in (its git repository names the forge and the repository) */
  cwd?: string
}

const DEFAULT_CONFIG = 'evalgate.yml'
const DEFAULT_OUT = 'baseline.json'

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string', short: 'c' },
        workflow: { type: 'string' },
        out: { type: 'string', short: 'o' },
        branch: { type: 'string' },
        repo: { type: 'string' },
        from: { type: 'string' },
        'artifact-name': { type: 'string' },
        job: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false }
      }
    })
  } catch (err) {
    throw new UsageError(`${errorMessage(err)}\n\n${BASELINE_USAGE}`)
  }
}

/** The artifact the record is published as: named, else the action's default for the config's name. */
async function artifactNameOf(named: string | undefined, configFile: string | undefined, cwd: string): Promise<string> {
  if (named !== undefined) {
    if (!/^[A-Za-z0-9._-]+$/.test(named)) throw new UsageError(`--artifact-name "${named}" may hold only letters, digits, ".", "_" and "-"`)
    return named
  }
  const file = configFile ?? (existsSync(path.join(cwd, DEFAULT_CONFIG)) ? DEFAULT_CONFIG : undefined)
  if (file === undefined)
    throw new UsageError(`baseline pull: no ${DEFAULT_CONFIG} here to name the artifact (evalgate-<name>): give the config with -c, or --artifact-name`)
  const absolute = path.resolve(cwd, file)
  return recordArtifactName(parseConfig(await readText(absolute), absolute).name)
}

/** The forge: --from, else the one the origin remote is on, else GitHub when the environment names a GitHub repository or API. */
function sourceIdOf(from: string | undefined, io: BaselineIO, cwd: string): string {
  if (from !== undefined) {
    if (!SOURCES[from]) throw new UsageError(`--from "${from}": evalgate pulls baselines from ${Object.keys(SOURCES).join(', ')}`)
    return from
  }
  const remote = originUrl(cwd, io.env)
  const detected =
    sourceOfRemote(remote, io.env) ??
    (io.env.GITHUB_REPOSITORY || io.env.GITHUB_API_URL ? 'github' : io.env.GITLAB_CI || io.env.CI_SERVER_URL ? 'gitlab' : undefined)
  if (!detected)
    throw new UsageError(
      `baseline pull: which forge? ${remote ? `the remote origin (${remote}) is on none evalgate knows` : `${cwd} has no git remote "origin"`}; say it with --from ${Object.keys(SOURCES).join(' | ')}`
    )
  return detected
}

export async function baselineCommand(args: string[], io: BaselineIO): Promise<number> {
  const [sub, ...rest] = args
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(`Usage: evalgate baseline pull [options]\n\n${BASELINE_USAGE}\n`)
    return 0
  }
  if (sub !== 'pull')
    throw new UsageError(`baseline ${sub === undefined ? 'needs' : `"${sub}" is not`} a subcommand: evalgate baseline pull\n\n${BASELINE_USAGE}`)
  const { values, positionals } = parse(rest)
  if (values.help) {
    io.stdout.write(`Usage: evalgate baseline pull [options]\n\n${BASELINE_USAGE}\n`)
    return 0
  }
  if (positionals.length) throw new UsageError(`baseline pull takes no ${positionals.join(' ')}\n\n${BASELINE_USAGE}`)
  const cwd = io.cwd ?? process.cwd()
  const out = path.resolve(cwd, values.out ?? DEFAULT_OUT)
  const source = await SOURCES[sourceIdOf(values.from, io, cwd)]!()
  await makeDir(path.dirname(out))
  const tempDir = await mkdtemp(path.join(tmpdir(), 'evalgate-baseline-'))
  try {
    const pulled = await source.pull({
      env: io.env,
      cwd,
      repo: values.repo,
      branch: values.branch,
      workflow: values.workflow,
      job: values.job,
      artifactName: () => artifactNameOf(values['artifact-name'], values.config, cwd),
      artifactNamed: values['artifact-name'] !== undefined,
      tempDir
    })
    for (const notice of pulled.notices) io.stderr.write(`evalgate: notice: ${notice}\n`)
    await writeJsonAtomic(out, pulled.record)
    const { summary } = pulled.record
    io.stderr.write(
      `evalgate: baseline: ${pulled.from}${pulled.url ? ` ${pulled.url}` : ''}: ${summary.total} cases, pass rate ${(summary.passRate * 100).toFixed(1)}%\n` +
        `evalgate: written to ${values.out ?? DEFAULT_OUT}; compare with it: evalgate run${values.config ? ` -c ${values.config}` : ''} --baseline ${values.out ?? DEFAULT_OUT}\n`
    )
    return 0
  } finally {
    await rm(tempDir, { recursive: true, force: true })
  }
}
