/**
 * GitHub as a CI host (ci/host.ts): files at a pull request's base commit
 * through the contents API, commit dates through the commits API, and the
 * baseline from the artifacts of the default branch's runs of a workflow.
 */
import * as core from '@actions/core'
import type { CiHost, HostBaseline } from '../ci/host.js'
import type { RecordOptions } from '../config/record.js'
import { lookUpBaseline } from './artifacts/baseline.js'
import { commitDate, readFileAt } from './contents.js'
import { apiMessage, type ActionContext, type Octokit } from './context.js'
import type { ActionInputs } from './inputs.js'

/** Which runs a baseline may come from: this run's workflow on the baseline branch, unless named. */
export interface GitHubBaselineQuery {
  workflow: string | number | null
  branch: string | null
  baseSha: string | null
  currentRunId: number | null
}

export function gitHubHost(
  octokit: Octokit,
  ctx: ActionContext,
  inputs: Pick<ActionInputs, 'token' | 'baselineBranch'>,
  query: GitHubBaselineQuery
): CiHost<number> {
  return {
    words: { change: 'pull request', base: 'base commit' },
    async fileAt(file, sha) {
      try {
        return await readFileAt(octokit, ctx, file, sha)
      } catch (err) {
        throw new Error(apiMessage(err, 'contents: read'))
      }
    },
    commitDate: (sha) => commitDate(octokit, ctx, sha),
    async findBaseline(artifactName: string, read: RecordOptions): Promise<HostBaseline<number>> {
      const found = await lookUpBaseline(octokit, ctx, inputs, { ...query, artifactName, read })
      if (found.status !== 'found') {
        const problem = found.status === 'error' ? found.reason : null
        return { record: null, id: null, status: found.status, problem, notices: found.notices }
      }
      core.info(`evalgate: baseline: run ${found.run.id} (commit ${found.run.sha.slice(0, 7)}, ${found.run.createdAt}), artifact "${found.artifactName}"`)
      return { record: found.record, id: found.run.id, status: 'found', problem: null, notices: found.notices }
    }
  }
}
