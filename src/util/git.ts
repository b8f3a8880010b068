/**
 * Which commit a local run evaluated: in GitHub Actions the runner says
 * (GITHUB_SHA, GITHUB_REF, GITHUB_RUN_ID); elsewhere git is asked, so that a
 * record made on a laptop names its commit too.
 */
import { execFileSync } from 'node:child_process'

export interface GitInfo {
  sha: string | null
  ref: string | null
  runId: string | null
}

/** `program <args>` in `cwd`, its trimmed output; null when it fails, prints nothing or is not installed. */
export function outputOf(program: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): string | null {
  try {
    const out = execFileSync(program, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 15_000 }).trim()
    return out || null
  } catch {
    return null
  }
}

/** `git <args>` in `cwd`, its trimmed output; null outside a repository or without git. */
function git(args: string[], cwd: string): string | null {
  return outputOf('git', args, cwd)
}

/** The URL of the repository's `origin` remote, null without one. */
export function originUrl(cwd: string, env?: NodeJS.ProcessEnv): string | null {
  return outputOf('git', ['remote', 'get-url', 'origin'], cwd, env)
}

/** The commit checked out in `cwd` and its branch (`refs/heads/…`, null when detached). */
export function localGit(cwd: string): GitInfo {
  const sha = git(['rev-parse', '--verify', 'HEAD'], cwd)
  return { sha: sha && /^[0-9a-f]{40,64}$/.test(sha) ? sha : null, ref: sha ? git(['symbolic-ref', '--quiet', 'HEAD'], cwd) : null, runId: null }
}

/** What the runner says about the commit; nulls outside GitHub Actions. */
export function gitFromEnv(env: NodeJS.ProcessEnv): GitInfo {
  return { sha: env.GITHUB_SHA ?? null, ref: env.GITHUB_REF ?? null, runId: env.GITHUB_RUN_ID ?? null }
}

/**
 * The runner's word when there is one, else the repository at `cwd` (the CLI
 * run on a laptop); a CLI step inside a workflow records its run id either way.
 */
export function gitInfo(env: NodeJS.ProcessEnv, cwd: string): GitInfo {
  const git = env.GITHUB_SHA ? gitFromEnv(env) : localGit(cwd)
  return { ...git, runId: env.GITHUB_RUN_ID ?? git.runId }
}
