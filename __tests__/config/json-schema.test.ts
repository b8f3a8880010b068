import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { Ajv } from 'ajv'
import { glob } from 'tinyglobby'
import { parse as parseYaml } from 'yaml'
import { configJsonSchema, configJsonSchemaText, SCHEMA_URL } from '../../src/config/json-schema.js'
import { configSchema } from '../../src/config/schema.js'
import { CONFIG_FILE, initFiles } from '../../src/init/index.js'

const SCHEMA_FILE = 'schema/evalgate.schema.json'
const committed = readFileSync(SCHEMA_FILE, 'utf8')
const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(JSON.parse(committed))

describe('schema/evalgate.schema.json', () => {
  it('is what the zod schema generates today (else: run `npm run schema` and commit the file)', () => {
    const fresh = configJsonSchemaText()
    if (committed !== fresh) {
      throw new Error(`${SCHEMA_FILE} is stale: the zod schema in src/config/schema.ts changed. Run \`npm run schema\` and commit the file.`)
    }
  })

  it('is a draft-07 schema with its published $id, keys with defaults left optional', () => {
    const schema = configJsonSchema()
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#')
    expect(schema.$id).toBe(SCHEMA_URL)
    expect(schema.required).toEqual(['target'])
  })

  it("accepts init's config and every example's config", async () => {
    const init = initFiles().find((f) => f.path === CONFIG_FILE)!.content
    const examples = await glob('examples/*/evalgate.yml')
    expect(examples).toContain('examples/quickstart/evalgate.yml')
    for (const [name, text] of [['init', init], ...examples.map((f) => [f, readFileSync(f, 'utf8')])] as const) {
      const ok = validate(parseYaml(text))
      expect({ name, errors: ok ? null : validate.errors }).toEqual({ name, errors: null })
    }
  })
})

describe('the JSON Schema agrees with the zod schema', () => {
  const target = { module: './agent.mjs' }
  it.each([
    { name: 'the smallest config', config: { target, dataset: 'cases.yaml' }, valid: true },
    { name: 'inline cases', config: { target, cases: [{ input: 'x', expected: 'y' }] }, valid: true },
    {
      name: 'a full config',
      config: {
        version: 1,
        name: 'bot',
        dataset: ['a.yaml', 'b/*.jsonl'],
        target: { command: ['node', 'a.js'], protocol: 'jsonl', workers: 2, env: { A: 'b' }, timeoutMs: 1000 },
        concurrency: 4,
        repeat: 3,
        judge: { provider: 'command', command: 'python judge.py', threshold: 0.7 },
        gate: { maxRegressions: 1, maxPassRateDrop: 0.02, minPassRate: 0.9 },
        defaults: { assert: [{ type: 'not-contains', value: 'x' }] },
        badge: { label: 'q', bands: [{ min: 0.9, color: 'green' }] }
      },
      valid: true
    },
    { name: 'no target', config: { dataset: 'cases.yaml' }, valid: false },
    { name: 'two kinds of target', config: { target: { module: 'a.mjs', command: 'node a.js' }, dataset: 'x' }, valid: false },
    { name: 'no kind of target', config: { target: { timeoutMs: 5 }, dataset: 'x' }, valid: false },
    { name: 'neither dataset nor cases', config: { target }, valid: false },
    { name: 'an unknown key', config: { target, dataset: 'x', datasets: 'y' }, valid: false },
    { name: 'a misspelt gate key', config: { target, dataset: 'x', gate: { maxRegresions: 1 } }, valid: false },
    { name: 'a pass rate above 1', config: { target, dataset: 'x', gate: { minPassRate: 90 } }, valid: false },
    { name: 'version 2', config: { version: 2, target, dataset: 'x' }, valid: false },
    { name: 'a name with spaces', config: { name: 'my bot', target, dataset: 'x' }, valid: false },
    { name: 'a bad badge colour', config: { target, dataset: 'x', badge: { bands: [{ min: 0, color: 'pink!' }] } }, valid: false }
  ])('$name: valid = $valid', ({ config, valid }) => {
    expect(configSchema.safeParse(config).success).toBe(valid)
    expect(validate(config)).toBe(valid)
  })
})

it('the package ships the schema', () => {
  const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8'))
  expect(pkg.files).toContain('schema')
})
