/**
 * The action's inputs: named once here and read once, by
 * `readInputs`, into a typed value. Nothing is read at import time.
 */
import * as core from '@actions/core'
import { parseShard, type Shard } from '../engine.js'
import { UsageError } from '../errors.js'

export const Inputs = {
  Config: 'config',
  GithubToken: 'github-token',
  Mode: 'mode',
  Shard: 'shard',
  BaselineBranch: 'baseline-branch',
  Baseline: 'baseline',
  ArtifactName: 'artifact-name',
  Comment: 'comment',
  FailOnRegression: 'fail-on-regression',
  MaxRegressions: 'max-regressions',
  MaxPassRateDrop: 'max-pass-rate-drop',
  MinPassRate: 'min-pass-rate',
  BadgePath: 'badge-path',
  Junit: 'junit',
  GateFrom: 'gate-from',
  AcceptLabel: 'accept-label',
  OnBaselineError: 'on-baseline-error'
} as const

export type InputName = (typeof Inputs)[keyof typeof Inputs]

export const MODES = ['run', 'merge', 'comment'] as const
export type Mode = (typeof MODES)[number]

/** Where a pull request's gate settings come from: the base commit's config, or the PR's own. */
export const GATE_SOURCES = ['base', 'head'] as const
export type GateSource = (typeof GATE_SOURCES)[number]

export const BASELINE_ERROR_POLICIES = ['fail', 'warn'] as const
export type BaselineErrorPolicy = (typeof BASELINE_ERROR_POLICIES)[number]

export const DEFAULT_ACCEPT_LABEL = 'evalgate:accept'

export const COMMENT_POLICIES = ['always', 'on-change', 'never'] as const
export type CommentPolicy = (typeof COMMENT_POLICIES)[number]

/** The input overrides of the config's `gate:`; only the ones given are set. */
export interface GateOverrides {
  maxRegressions?: number
  maxPassRateDrop?: number
  minPassRate?: number
}

export interface ActionInputs {
  config: string
  token: string
  mode: Mode
  /** mode run only: run this slice of the cases and upload it for the merge job */
  shard: Shard | null
  baselineBranch: string | null
  baseline: string | null
  artifactName: string | null
  comment: CommentPolicy
  failOnRegression: boolean
  gate: GateOverrides
  badgePath: string | null
  /** where the JUnit XML goes */
  junit: string | null
  gateFrom: GateSource
  /** the label that accepts a failing gate on purpose; null when set to "" */
  acceptLabel: string | null
  onBaselineError: BaselineErrorPolicy
}

/** How one input is read; tests pass a map, the action passes core.getInput. */
export type InputReader = (name: InputName) => string

export const actionInput: InputReader = (name) => core.getInput(name)

const TRUE = ['true', 'True', 'TRUE']
const FALSE = ['false', 'False', 'FALSE']

function optional(read: InputReader, name: InputName): string | null {
  const value = read(name).trim()
  return value === '' ? null : value
}

function oneOf<T extends string>(read: InputReader, name: InputName, allowed: readonly T[], fallback: T): T {
  const value = optional(read, name) ?? fallback
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${name}: "${value}" is not one of ${allowed.join(', ')}`)
  }
  return value as T
}

function boolean(read: InputReader, name: InputName, fallback: boolean): boolean {
  const value = optional(read, name)
  if (value === null) return fallback
  if (TRUE.includes(value)) return true
  if (FALSE.includes(value)) return false
  throw new UsageError(`${name}: "${value}" is not a boolean; use true or false`)
}

function wholeNumber(read: InputReader, name: InputName): number | undefined {
  const value = optional(read, name)
  if (value === null) return undefined
  if (!/^\d+$/.test(value)) throw new UsageError(`${name}: "${value}" is not a whole number (0, 1, 2, …)`)
  return Number(value)
}

/** A fraction in [0, 1]; "2%" is read as 0.02 because people write pass rates both ways. */
function fraction(read: InputReader, name: InputName): number | undefined {
  const value = optional(read, name)
  if (value === null) return undefined
  const percent = value.endsWith('%')
  const text = percent ? value.slice(0, -1).trim() : value
  const number = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) / (percent ? 100 : 1) : NaN
  if (!(number >= 0 && number <= 1)) {
    throw new UsageError(`${name}: "${value}" is not a fraction between 0 and 1 (0.02 or 2% = two points)`)
  }
  return number
}

function shard(read: InputReader): Shard | null {
  const value = optional(read, Inputs.Shard)
  return value === null ? null : parseShard(value, Inputs.Shard)
}

/** The accept label: default evalgate:accept; "none" turns accepting by label off. */
function acceptLabel(read: InputReader): string | null {
  const value = optional(read, Inputs.AcceptLabel)
  if (value === null) return DEFAULT_ACCEPT_LABEL
  return value === 'none' ? null : value
}

export function readInputs(read: InputReader = actionInput): ActionInputs {
  const gate: GateOverrides = {}
  const maxRegressions = wholeNumber(read, Inputs.MaxRegressions)
  const maxPassRateDrop = fraction(read, Inputs.MaxPassRateDrop)
  const minPassRate = fraction(read, Inputs.MinPassRate)
  if (maxRegressions !== undefined) gate.maxRegressions = maxRegressions
  if (maxPassRateDrop !== undefined) gate.maxPassRateDrop = maxPassRateDrop
  if (minPassRate !== undefined) gate.minPassRate = minPassRate

  const inputs: ActionInputs = {
    config: optional(read, Inputs.Config) ?? 'evalgate.yml',
    token: optional(read, Inputs.GithubToken) ?? '',
    mode: oneOf(read, Inputs.Mode, MODES, 'run'),
    shard: shard(read),
    baselineBranch: optional(read, Inputs.BaselineBranch),
    baseline: optional(read, Inputs.Baseline),
    artifactName: optional(read, Inputs.ArtifactName),
    comment: oneOf(read, Inputs.Comment, COMMENT_POLICIES, 'always'),
    failOnRegression: boolean(read, Inputs.FailOnRegression, true),
    gate,
    badgePath: optional(read, Inputs.BadgePath),
    junit: optional(read, Inputs.Junit),
    gateFrom: oneOf(read, Inputs.GateFrom, GATE_SOURCES, 'base'),
    acceptLabel: acceptLabel(read),
    onBaselineError: oneOf(read, Inputs.OnBaselineError, BASELINE_ERROR_POLICIES, 'fail')
  }

  // Cross-field checks.
  if (inputs.shard !== null && inputs.mode !== 'run') {
    throw new UsageError(`${Inputs.Shard}: only for mode: run (the shard jobs); the mode: ${inputs.mode} job takes no shard`)
  }
  if (inputs.shard !== null && inputs.badgePath !== null) {
    throw new UsageError(`${Inputs.BadgePath}: a shard has no badge of its own; give badge-path to the mode: merge job`)
  }
  if (inputs.shard !== null && inputs.junit !== null) {
    throw new UsageError(`${Inputs.Junit}: a shard's cases are reported with the others by the mode: merge job; give junit to that job`)
  }
  if (inputs.mode === 'merge' && !inputs.token) {
    throw new UsageError(`mode: merge needs a github-token that can read this run's artifacts (actions: read)`)
  }
  if (inputs.artifactName !== null && !/^[A-Za-z0-9._-]+$/.test(inputs.artifactName)) {
    throw new UsageError(`${Inputs.ArtifactName}: "${inputs.artifactName}" may hold only letters, digits, ".", "_" and "-"`)
  }
  if (inputs.mode === 'comment' && inputs.baseline !== null) {
    throw new UsageError(`${Inputs.Baseline}: not used with mode: comment (the baseline is looked up from the default branch's runs)`)
  }
  return inputs
}
