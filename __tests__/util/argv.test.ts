import { describe, expect, it } from '@jest/globals'
import { ConfigError } from '../../src/errors.js'
import { splitArgv } from '../../src/util/argv.js'

describe('splitArgv', () => {
  it.each<[string, string[]]>([
    ['node agent.js --fast', ['node', 'agent.js', '--fast']],
    ['  node \t agent.js\n--fast  ', ['node', 'agent.js', '--fast']],
    ['', []],
    ['   ', []],
    ["python 'my agent.py'", ['python', 'my agent.py']],
    ['python "my agent.py"', ['python', 'my agent.py']],
    ['a"b c"d', ['ab cd']],
    ['a\'b\'"c"', ['abc']],
    ['my\\ agent.py', ['my agent.py']],
    ['\\"quoted\\"', ['"quoted"']],
    ['"say \\"hi\\""', ['say "hi"']],
    ["'back\\slash'", ['back\\slash']],
    ['"back\\slash"', ['back\\slash']],
    ['"back\\\\slash"', ['back\\slash']],
    ["'it'\\''s'", ["it's"]],
    ["a '' b", ['a', '', 'b']],
    ['""', ['']],
    ['line\\\ncontinued', ['linecontinued']],
    ['"{{input}}"', ['{{input}}']],
    ['--key=${API_KEY}', ['--key=${API_KEY}']],
    ['"$HOME" ~ *.js', ['$HOME', '~', '*.js']],
    ['\'a | b\' "c > d" e\\;f', ['a | b', 'c > d', 'e;f']],
    ['naïve 日本', ['naïve', '日本']]
  ])('%j → %j', (command, argv) => {
    expect(splitArgv(command)).toEqual(argv)
  })

  it.each<[string, RegExp]>([
    ["node 'agent.js", /unterminated single quote at position 5/],
    ['node "agent.js', /unterminated double quote at position 5/],
    ['node "agent.js\\"', /unterminated double quote/],
    ['node agent.js \\', /lone backslash/],
    ['node agent.js | tee log', /unquoted "\|".*never runs a shell/],
    ['node a.js; rm -rf /', /unquoted ";"/],
    ['node a.js > out.txt', /unquoted ">"/],
    ['node a.js && echo', /unquoted "&"/],
    ['echo $(whoami)', /unquoted "\("/],
    ['echo `whoami`', /unquoted "`"/]
  ])('%j is a config error (%s)', (command, message) => {
    expect(() => splitArgv(command)).toThrow(ConfigError)
    expect(() => splitArgv(command)).toThrow(message)
  })

  it('names the setting in its errors', () => {
    expect(() => splitArgv("'x", 'judge.command')).toThrow(/^judge\.command: /)
  })
})
