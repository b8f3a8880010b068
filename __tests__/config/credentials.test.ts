import { describe, expect, it } from '@jest/globals'
import { credentialDifferences, credentialUses, hostOf, refuseForbiddenCredentials } from '../../src/config/credentials.js'
import { parseConfig } from '../../src/config/load.js'
import { configSchema } from '../../src/config/schema.js'
import { ConfigError } from '../../src/errors.js'
import { credentialFrom, expandVars, isForbiddenVar, minimalEnv } from '../../src/util/env.js'

const parse = (extra: Record<string, unknown>) => configSchema.parse({ target: { command: ['node', 'agent.js'] }, dataset: 'cases.yaml', ...extra })

describe('the forbidden variables (SPEC §9): one list', () => {
  it.each([
    ['INPUT_GITHUB-TOKEN', true],
    ['input_config', true],
    ['ACTIONS_RUNTIME_TOKEN', true],
    ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', true],
    ['actions_results_url', true],
    ['GITHUB_TOKEN', true],
    ['EVALGATE_GITLAB_TOKEN', true],
    ['GITLAB_TOKEN', true],
    ['CI_JOB_TOKEN', true],
    ['GITHUB_TOKEN_X', false],
    ['OPENAI_API_KEY', false],
    ['MY_ACTIONS_KEY', false]
  ])('%s forbidden: %s', (name, forbidden) => {
    expect(isForbiddenVar(name)).toBe(forbidden)
  })

  it('the expander refuses them, set or not, and reads nothing', () => {
    const secrets = new Set<string>()
    expect(() => expandVars('Bearer ${CI_JOB_TOKEN}', { CI_JOB_TOKEN: 'job-token-1' }, secrets, 'target.http.headers.Authorization')).toThrow(
      /target\.http\.headers\.Authorization reads CI_JOB_TOKEN: the runner's own credentials/
    )
    expect(() => expandVars('${ACTIONS_RUNTIME_TOKEN}', {}, secrets)).toThrow(ConfigError)
    expect(secrets.size).toBe(0)
    expect(expandVars('${MY_KEY}', { MY_KEY: 'sk-mine' }, secrets)).toBe('sk-mine')
  })

  it('apiKeyEnv may not name them', () => {
    expect(() => credentialFrom({ GITLAB_TOKEN: 'glpat-1' }, 'GITLAB_TOKEN', 'judge.apiKeyEnv')).toThrow(/judge\.apiKeyEnv names GITLAB_TOKEN/)
    expect(credentialFrom({ K: '' }, 'K', 'x')).toBeUndefined()
    expect(credentialFrom({ K: 'v' }, 'K', 'x')).toBe('v')
  })

  it('the environment of code under test never holds them, even when target.env names them', () => {
    const env = minimalEnv(
      { PATH: '/bin', GITLAB_TOKEN: 'glpat', CI_JOB_TOKEN: 'job', OPENAI_API_KEY: 'sk' },
      { EVALGATE_GITLAB_TOKEN: 'x', GITHUB_TOKEN: 'y', MINE: 'z' }
    )
    expect(env).toEqual({ PATH: '/bin', MINE: 'z' })
  })
})

describe('credentialUses: what a config reads and where it goes', () => {
  it.each([
    ['https://api.openai.com/v1', 'api.openai.com'],
    ['http://127.0.0.1:8080/v1', '127.0.0.1:8080'],
    ['https://user:pw@Example.COM:443/x', 'example.com'],
    ['${BASE}/v1', '${BASE}/v1'],
    ['https://${HOST}/v1', '${host}']
  ])('hostOf(%s) = %s', (url, host) => {
    expect(hostOf(url)).toBe(host)
  })

  it('names every variable of every target kind and the judge, with its place and host', () => {
    const config = parse({
      target: { command: ['node', 'agent.js', '--key=${ARGV_KEY}'], env: { A: '${AGENT_KEY}', B: 'x-${OTHER}' } },
      judge: { baseUrl: 'https://judge.example/v1', apiKeyEnv: 'JUDGE_KEY', model: '${JUDGE_MODEL}' }
    })
    expect(credentialUses(config).map((u) => [u.variable, u.place, u.host, u.at])).toEqual([
      ['AGENT_KEY', 'target.env.A', null, 'target.env.A'],
      ['OTHER', 'target.env.B', null, 'target.env.B'],
      ['ARGV_KEY', 'target.command', null, 'target.command[2]'],
      ['JUDGE_KEY', 'provider:openai', 'judge.example', 'judge.apiKeyEnv'],
      ['JUDGE_MODEL', 'provider:openai', 'judge.example', 'judge.model']
    ])
    const http = parse({ target: { http: { url: 'https://agent.example/chat', headers: { Authorization: 'Bearer ${AGENT_TOKEN}' } } } })
    expect(credentialUses(http)).toEqual([{ variable: 'AGENT_TOKEN', place: 'target.http', host: 'agent.example', at: 'target.http.headers.Authorization' }])
    // the openai target's default key is a use too
    const openai = parse({ target: { openai: { model: 'm' } } })
    expect(credentialUses(openai)).toEqual([{ variable: 'OPENAI_API_KEY', place: 'provider:openai', host: 'api.openai.com', at: 'target.openai.apiKeyEnv' }])
  })

  it('a promptfoo config’s providers: openai reads its key (or apiKeyEnvar) toward its base URL; exec: expands ${VAR}', () => {
    const config = parseConfig(
      JSON.stringify({
        prompts: ['{{q}}'],
        providers: [{ id: 'openai:chat:m', config: { apiKeyEnvar: 'PF_KEY', apiBaseUrl: 'http://proxy.local:4000/v1' } }, 'exec:./agent.sh ${TOOL_KEY}'],
        tests: []
      }),
      'promptfooconfig.json'
    )
    expect(credentialUses(config).map((u) => [u.variable, u.place, u.host])).toEqual(
      expect.arrayContaining([
        ['PF_KEY', 'provider:openai', 'proxy.local:4000'],
        ['TOOL_KEY', 'target.command', null]
      ])
    )
  })
})

describe('refuseForbiddenCredentials: at load, exit 2, naming file, line and path', () => {
  it.each([
    [
      'version: 1\ndataset: c.yaml\ntarget:\n  command: [node, a.js]\n  env:\n    RT: ${ACTIONS_RUNTIME_TOKEN}\n',
      /evalgate\.yml:6: target\.env\.RT reads ACTIONS_RUNTIME_TOKEN/
    ],
    [
      'version: 1\ndataset: c.yaml\ntarget:\n  openai:\n    model: m\n    apiKeyEnv: GITHUB_TOKEN\n',
      /evalgate\.yml:6: target\.openai\.apiKeyEnv names GITHUB_TOKEN/
    ],
    ['version: 1\ndataset: c.yaml\ntarget:\n  http:\n    url: http://x/${INPUT_CONFIG}\n', /target\.http\.url reads INPUT_CONFIG/],
    [
      'version: 1\ndataset: c.yaml\ntarget:\n  command: [node, a.js]\njudge:\n  apiKeyEnv: CI_JOB_TOKEN\n',
      /evalgate\.yml:6: judge\.apiKeyEnv names CI_JOB_TOKEN/
    ],
    [
      'version: 1\ndataset: c.yaml\ntarget:\n  command: [node, a.js]\njudge:\n  provider: command\n  command: [node, j.js]\n  env:\n    K: ${GITLAB_TOKEN}\n',
      /judge\.env\.K reads GITLAB_TOKEN/
    ]
  ])('%#', (text, message) => {
    expect(() => parseConfig(text, 'evalgate.yml')).toThrow(message)
  })

  it('a promptfoo provider’s apiKeyEnvar too', () => {
    const text = JSON.stringify({ prompts: ['p'], providers: [{ id: 'openai:m', config: { apiKeyEnvar: 'ACTIONS_ID_TOKEN_REQUEST_TOKEN' } }], tests: [] })
    expect(() => parseConfig(text, 'promptfooconfig.json')).toThrow(/providers\[0\]\.config\.apiKeyEnvar names ACTIONS_ID_TOKEN_REQUEST_TOKEN/)
  })

  it('declared uses of other providers are held to the same list', () => {
    const declare = () => [{ variable: 'ACTIONS_RUNTIME_TOKEN', place: 'provider:anthropic', host: 'api.anthropic.com', at: 'target.provider' }]
    expect(() => refuseForbiddenCredentials(parse({}), 'evalgate.yml', () => undefined, [declare])).toThrow(/target\.provider reads ACTIONS_RUNTIME_TOKEN/)
  })
})

describe('credentialDifferences: a pull request sends no credential where the base commit does not', () => {
  const env = { OPENAI_API_KEY: 'sk-1', JUDGE_KEY: 'sk-2', AGENT_KEY: 'sk-3' }
  const judge = { baseUrl: 'https://api.openai.com/v1' }

  it('an agent and a judge that share OPENAI_API_KEY keep working', () => {
    const base = parse({ target: { command: ['python', 'agent.py'], env: { OPENAI_API_KEY: '${OPENAI_API_KEY}' } }, judge })
    const head = parse({ target: { command: ['python', 'agent_v2.py'], env: { OPENAI_API_KEY: '${OPENAI_API_KEY}' } }, judge })
    expect(credentialDifferences(head, base, env)).toEqual([])
    // an openai target toward the host the judge already sends the key to: the same provider toward the same host
    expect(credentialDifferences(parse({ target: { openai: { model: 'gpt-4o' } }, judge }), base, env)).toEqual([])
  })

  it.each([
    [
      'the judge’s key handed to the agent',
      { target: { command: ['node', 'a.js'], env: { JK: '${JUDGE_KEY}' } }, judge: { ...judge, apiKeyEnv: 'JUDGE_KEY' } },
      "target.env.JK reads JUDGE_KEY for the agent's process (target.env.JK), which the base commit's config does not (it sends JUDGE_KEY only to openai at api.openai.com)"
    ],
    [
      'the shared key to a host of the pull request’s choosing',
      { target: { openai: { model: 'm', baseUrl: 'https://collector.evil/v1' } }, judge },
      "target.openai.apiKeyEnv names OPENAI_API_KEY for openai at collector.evil, which the base commit's config does not (it sends OPENAI_API_KEY only to openai at api.openai.com)"
    ],
    [
      'a variable the base never reads, under another name',
      { target: { command: ['node', 'a.js'], env: { K: '${AGENT_KEY}', RENAMED: '${OPENAI_API_KEY}' } }, judge },
      "target.env.K reads AGENT_KEY for the agent's process (target.env.K), which the base commit's config does not (it does not read AGENT_KEY at all)"
    ]
  ])('%s is refused, naming the difference', (_what, head, sentence) => {
    const base = parse({ target: { command: ['node', 'a.js'] }, judge: { ...judge, apiKeyEnv: (head as { judge: { apiKeyEnv?: string } }).judge.apiKeyEnv } })
    expect(credentialDifferences(parse(head), base, env)[0]).toBe(sentence)
  })

  it('a provider target (SPEC §11a) declares its credential and host: the same provider toward another host is refused', () => {
    const base = parse({ target: { provider: 'anthropic:messages:claude-sonnet-4' } })
    const env2 = { ANTHROPIC_API_KEY: 'sk-ant-1' }
    expect(credentialDifferences(parse({ target: { provider: 'anthropic:messages:claude-opus-4' } }), base, env2)).toEqual([])
    const moved = parse({ target: { provider: 'anthropic:messages:claude-sonnet-4', config: { apiBaseUrl: 'https://collector.evil' } } })
    expect(credentialDifferences(moved, base, env2)).toEqual([
      "target.provider (anthropic:messages:claude-sonnet-4) reads ANTHROPIC_API_KEY for anthropic at collector.evil, which the base commit's config does not (it sends ANTHROPIC_API_KEY only to anthropic at api.anthropic.com)"
    ])
  })

  it('a variable that is not set carries nothing', () => {
    const base = parse({ target: { command: ['node', 'a.js'] } })
    const head = parse({ target: { openai: { model: 'm', baseUrl: 'http://127.0.0.1:1234/v1' } } })
    expect(credentialDifferences(head, base, {})).toEqual([])
    expect(credentialDifferences(head, base, { OPENAI_API_KEY: 'sk' })).toHaveLength(1)
  })
})
