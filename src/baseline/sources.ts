/**
 * Where `evalgate baseline pull` gets the default branch's latest baseline
 * record from: one module per forge, each the same small interface,
 * chosen by `--from` or by the repository's `origin` remote. GitHub is
 * github.ts, GitLab gitlab.ts; another forge is one more module and one more
 * entry in SOURCES.
 */
import type { RunRecord } from '../types.js'

export interface BaselineRequest {
  env: NodeJS.ProcessEnv
  /** the folder whose git repository is asked for its remote */
  cwd: string
  /** "owner/name" (GitHub) or the forge's project path; else read from the remote */
  repo?: string
  /** the branch whose runs are baselines; else the repository's default branch */
  branch?: string
  /** GitHub: the workflow that publishes the record, when named (--workflow) */
  workflow?: string
  /** GitLab: the CI job that publishes the record, when named (--job) */
  job?: string
  /** GitHub: the artifact the record is published as (--artifact-name, else from the config), asked only by a source that needs it */
  artifactName: () => Promise<string>
  /** whether --artifact-name was given */
  artifactNamed: boolean
  /** a fresh folder for the download, removed afterwards by the caller */
  tempDir: string
}

export interface PulledBaseline {
  record: RunRecord
  /** where it came from, in words: "acme/bot, run 1234 of evalgate.yml on main (push, commit 0a1b2c3, 2026-01-01T00:00:00Z)" */
  from: string
  /** the run's page, when the forge has one */
  url: string | null
  /** what the user should know either way (runs skipped, expired artifacts) */
  notices: string[]
}

export interface BaselineSource {
  /** the value of `--from` that picks it */
  id: string
  /** the latest baseline; throws a ConfigError saying why there is none or why it cannot be read */
  pull(request: BaselineRequest): Promise<PulledBaseline>
}

/** Each source, loaded only when used: the GitHub clients are the largest part of the CLI's bundle. */
export const SOURCES: Record<string, () => Promise<BaselineSource>> = {
  github: async () => (await import('./github.js')).githubSource,
  gitlab: async () => (await import('./gitlab.js')).gitlabSource
}

function hostOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined
  return /^(?:[a-z+]+:\/\/)?(?:[^@/]+@)?([^/:]+)/i.exec(url.trim())?.[1]?.toLowerCase()
}

/**
 * The source a remote URL points at: its host names the forge — github.com;
 * gitlab.com, a gitlab.* host, or the GitLab server the environment names
 * (CI_SERVER_URL, GITLAB_HOST). A GitHub Enterprise host is said with --from github.
 */
export function sourceOfRemote(url: string | null, env: NodeJS.ProcessEnv = {}): string | undefined {
  const host = hostOf(url)
  if (!host) return undefined
  if (host === 'github.com' || host === 'ssh.github.com') return 'github'
  const named = [env.CI_SERVER_URL, env.GITLAB_HOST].map((u) => hostOf(u?.replace(/^(?![a-z+]+:\/\/)/i, 'https://')))
  if (host === 'gitlab.com' || host.startsWith('gitlab.') || named.includes(host)) return 'gitlab'
  return undefined
}
