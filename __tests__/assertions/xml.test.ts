/**
 * is-xml and contains-xml (src/assertions/xml.ts) pinned down case by case: the
 * DOCTYPE rules, entities taken on trust from an external DTD, the required
 * element paths, and how contains-xml picks the elements embedded in prose.
 */
import { describe, expect, it } from '@jest/globals'
import { evaluateAssertions, validateAssertion } from '../../src/assertions/index.js'
import type { Assertion } from '../../src/types.js'
import { grade, makeContext } from './helpers.js'

const isXml = (value?: unknown): Assertion => (value === undefined ? { type: 'is-xml' } : { type: 'is-xml', value })
const containsXml = (value?: unknown): Assertion => (value === undefined ? { type: 'contains-xml' } : { type: 'contains-xml', value })

const PATHS_PROBLEM = 'is-xml `value` lists the required elements as dotted paths (["analysis.color"], "a.b, a.c" or {requiredElements: [...]}), got'

describe('is-xml: the parse', () => {
  it('passes a well-formed document with the bare reason', async () => {
    expect(await grade(isXml(), '<a><b>text</b></a>')).toEqual({ type: 'is-xml', passed: true, score: 1, reason: 'output is well-formed XML' })
  })

  it('fails with saxes’ message, position included', async () => {
    expect(await grade(isXml(), '<a>x</a> y')).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected output to be well-formed XML (1:10: text data outside of root node.), got: "<a>x</a> y"'
    })
    expect((await grade(isXml(), '')).reason).toBe('expected output to be well-formed XML (1:0: document must contain a root element.), got: ""')
  })

  it('not-is-xml passes on prose and fails on XML, with the reason worded for the verdict', async () => {
    expect(await grade({ type: 'not-is-xml' }, 'just words')).toMatchObject({
      passed: true,
      reason: 'output is not well-formed XML (1:10: text data outside of root node.)'
    })
    expect(await grade({ type: 'not-is-xml' }, '<a/>')).toMatchObject({ passed: false, reason: 'expected output not to be well-formed XML, got: "<a/>"' })
  })
})

describe('is-xml: DOCTYPE declarations', () => {
  it('refuses an internal subset with the reason', async () => {
    expect((await grade(isXml(), '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>')).reason).toBe(
      'expected output to be well-formed XML (DTD internal subsets are not supported; declare no entities, or use an external DTD), got: "<!DOCTYPE a [<!ENTITY x \\"y\\">]><a>&x;</a>"'
    )
  })

  it('allows a bracket inside a quoted system literal, double or single quoted, and in the second literal of PUBLIC', async () => {
    expect((await grade(isXml(), '<!DOCTYPE a SYSTEM "a[1].dtd"><a/>')).passed).toBe(true)
    expect((await grade(isXml(), "<!DOCTYPE a SYSTEM 'a[1].dtd'><a/>")).passed).toBe(true)
    expect((await grade(isXml(), '<!DOCTYPE a PUBLIC "-//X//EN" "a[1].dtd"><a/>')).passed).toBe(true)
    expect((await grade(isXml(), `<!DOCTYPE a PUBLIC '-//X//EN' 'a[1].dtd'><a/>`)).passed).toBe(true)
  })

  it('a bracket outside the literals is an internal subset, even after quoted ones', async () => {
    expect((await grade(isXml(), '<!DOCTYPE a SYSTEM "a.dtd" []><a/>')).reason).toContain('DTD internal subsets are not supported')
    expect((await grade(isXml(), `<!DOCTYPE a SYSTEM 'x"y' [<!ENTITY z "1">]><a/>`)).reason).toContain('DTD internal subsets are not supported')
  })

  it('refuses a malformed DOCTYPE', async () => {
    expect((await grade(isXml(), '<!DOCTYPE a SYSTEM><a/>')).reason).toBe(
      'expected output to be well-formed XML (malformed DOCTYPE declaration), got: "<!DOCTYPE a SYSTEM><a/>"'
    )
    expect((await grade(isXml(), '<!DOCTYPE a SYSTEM "a#frag.dtd"><a/>')).reason).toContain('(malformed DOCTYPE declaration)')
  })

  it('a bare DOCTYPE declares no entities: an unknown one is undefined', async () => {
    expect((await grade(isXml(), '<!DOCTYPE a><a/>')).passed).toBe(true)
    expect((await grade(isXml(), '<!DOCTYPE a><a>&x;</a>')).reason).toBe(
      'expected output to be well-formed XML (1:18: undefined entity.), got: "<!DOCTYPE a><a>&x;</a>"'
    )
  })

  it('an external DTD’s entities are taken on trust', async () => {
    expect((await grade(isXml(), '<!DOCTYPE a SYSTEM "a.dtd"><a>&x;</a>')).passed).toBe(true)
    expect((await grade(isXml(), '<!DOCTYPE a PUBLIC "-//X//EN" "a.dtd"><a>&x;</a>')).passed).toBe(true)
    expect((await grade(isXml(), '<?xml version="1.0" standalone="no"?><!DOCTYPE a SYSTEM "a.dtd"><a>&x;</a>')).passed).toBe(true)
  })

  it('trusts entity names of every shape a name may take', async () => {
    const names = ['_x', ':x', 'é', 'a1', 'a.b', 'a-b', 'a_b', 'a:b', 'aé', 'a٣']
    for (const name of names) {
      const result = await grade(isXml(), `<!DOCTYPE a SYSTEM "a.dtd"><a>&${name}; and &${name};</a>`)
      expect([name, result.passed]).toEqual([name, true])
    }
    // more than one distinct entity, each trusted
    expect((await grade(isXml(), '<!DOCTYPE a SYSTEM "a.dtd"><a>&x; &y;<b>&z;</b></a>')).passed).toBe(true)
  })

  it('still checks the predefined entities and character references', async () => {
    expect((await grade(isXml(), '<!DOCTYPE a SYSTEM "a.dtd"><a>&amp; &#65; &#x42;</a>')).passed).toBe(true)
    expect((await grade(isXml(), '<!DOCTYPE a SYSTEM "a.dtd"><a>&#xZZ;</a>')).passed).toBe(false)
  })

  it('standalone="yes" trusts no external entity', async () => {
    expect((await grade(isXml(), '<?xml version="1.0" standalone="yes"?><!DOCTYPE a SYSTEM "a.dtd"><a>&x;</a>')).reason).toContain('undefined entity.')
    expect((await grade(isXml(), '<?xml version="1.0" standalone="yes"?><!DOCTYPE a SYSTEM "a.dtd"><a>&amp;</a>')).passed).toBe(true)
  })
})

describe('is-xml: required elements', () => {
  const doc = '<root><item><name>a</name></item><item><name>b</name><tag/></item><empty/><x1/></root>'

  it('names the paths in the reason, as a list, a comma-separated string or {requiredElements}', async () => {
    expect((await grade(isXml(['root.item', 'root.empty']), doc)).reason).toBe('output is well-formed XML with root.item, root.empty')
    expect((await grade(isXml(' root.item ,root.empty, '), doc)).reason).toBe('output is well-formed XML with root.item, root.empty')
    expect((await grade(isXml({ requiredElements: ['root.item.name'] }), doc)).reason).toBe('output is well-formed XML with root.item.name')
  })

  it('lists the missing paths', async () => {
    expect(await grade(isXml('root.item, root.nope, other, root.item.tag.x'), doc)).toMatchObject({
      passed: false,
      score: 0,
      reason: `expected output to be well-formed XML with root.item, root.nope, other, root.item.tag.x (missing root.nope, other, root.item.tag.x), got: ${JSON.stringify(doc)}`
    })
  })

  it('not-is-xml with paths passes when one is missing, naming it', async () => {
    expect(await grade({ type: 'not-is-xml', value: 'root.nope' }, doc)).toMatchObject({
      passed: true,
      reason: 'output is not well-formed XML with root.nope (missing root.nope)'
    })
  })

  it('an index picks one of the siblings of that name', async () => {
    expect((await grade(isXml('root.item.0.name'), doc)).passed).toBe(true)
    expect((await grade(isXml('root.item.1.tag'), doc)).passed).toBe(true)
    expect((await grade(isXml('root.item.0.tag'), doc)).reason).toContain('(missing root.item.0.tag)')
    expect((await grade(isXml('root.item.2'), doc)).reason).toContain('(missing root.item.2)')
    expect((await grade(isXml('root.0'), doc)).passed).toBe(true)
    expect((await grade(isXml('root.1'), doc)).passed).toBe(false)
  })

  it('an index of several digits counts from 0', async () => {
    const many = `<r>${'<i/>'.repeat(11)}<j/></r>`
    expect((await grade(isXml('r.i.10'), many)).passed).toBe(true)
    expect((await grade(isXml('r.i.11'), many)).passed).toBe(false)
  })

  it('a name with digits in it is a name, not an index', async () => {
    expect((await grade(isXml('root.x1'), doc)).passed).toBe(true)
  })

  it('a self-closing element has no children, and its siblings stay its siblings', async () => {
    expect((await grade(isXml('a.c'), '<a><b/><c/></a>')).passed).toBe(true)
    expect((await grade(isXml('a.b.c'), '<a><b/><c/></a>')).passed).toBe(false)
    expect((await grade(isXml('a.b.c'), '<a><b><c/></b></a>')).passed).toBe(true)
    expect((await grade(isXml('a.c'), '<a><b><c/></b></a>')).passed).toBe(false)
  })

  it('a path starts at the root: a nested element is not a root', async () => {
    expect((await grade(isXml('b'), '<a><b/></a>')).passed).toBe(false)
    expect((await grade(isXml('a'), '<a><b/></a>')).passed).toBe(true)
  })

  it('a list’s paths are taken as written: neither split at commas nor trimmed', async () => {
    expect((await grade(isXml([' a']), '<a/>')).reason).toBe('expected output to be well-formed XML with  a (missing  a), got: "<a/>"')
    expect((await grade(isXml(['a,b']), '<a/>')).reason).toContain('(missing a,b)')
  })

  it('a null value requires nothing', async () => {
    expect((await grade(isXml(null), '<a/>')).reason).toBe('output is well-formed XML')
    expect(validateAssertion(isXml(null))).toBeUndefined()
  })

  it('paths read from {requiredElements} given as text, when grading trusts validation', async () => {
    const list: Assertion[] = [isXml({ requiredElements: 'a.b, a.c' })]
    const [result] = await evaluateAssertions(list, makeContext('<a><b/></a>'), { validated: true })
    expect(result!.reason).toBe('expected output to be well-formed XML with a.b, a.c (missing a.c), got: "<a><b/></a>"')
  })
})

describe('is-xml and contains-xml: validation of the paths', () => {
  it('accepts a string, a list of paths or {requiredElements: [...]}', () => {
    for (const value of ['a.b', '', ['a.b', 'c'], { requiredElements: ['a.b'] }, { requiredElements: [] }, []]) {
      expect([value, validateAssertion(isXml(value))]).toEqual([value, undefined])
    }
  })

  it('refuses anything else, naming what it got', () => {
    expect(validateAssertion(isXml([1]))).toBe(`${PATHS_PROBLEM} a list`)
    expect(validateAssertion(isXml(['a', 1]))).toBe(`${PATHS_PROBLEM} a list`)
    expect(validateAssertion(isXml(['a', '']))).toBe(`${PATHS_PROBLEM} a list`)
    expect(validateAssertion(isXml(42))).toBe(`${PATHS_PROBLEM} number 42`)
    expect(validateAssertion(isXml({}))).toBe(`${PATHS_PROBLEM} a mapping`)
    expect(validateAssertion(isXml({ requiredElements: 'a' }))).toBe(`${PATHS_PROBLEM} a mapping`)
    expect(validateAssertion(containsXml(true))).toBe(
      'contains-xml `value` lists the required elements as dotted paths (["analysis.color"], "a.b, a.c" or {requiredElements: [...]}), got boolean true'
    )
  })
})

describe('contains-xml', () => {
  it('reads each element on its own: a DOCTYPE before it is not applied (README)', async () => {
    const document = '<!DOCTYPE a SYSTEM "a.dtd"><a>&x;</a>'
    expect((await grade(isXml(), document)).passed).toBe(true)
    expect((await grade(containsXml(), document)).passed).toBe(false)
    expect((await grade(containsXml(), '<!DOCTYPE a SYSTEM "a.dtd"><a>x</a>')).passed).toBe(true)
  })

  it('finds an element in prose, and says none was found otherwise', async () => {
    expect(await grade(containsXml(), 'Here: <a><b>1</b></a>. Done')).toEqual({
      type: 'contains-xml',
      passed: true,
      score: 1,
      reason: 'output contains well-formed XML'
    })
    expect(await grade(containsXml(), 'no markup here')).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected output to contain well-formed XML (none found), got: "no markup here"'
    })
  })

  it('not-contains-xml words both verdicts', async () => {
    expect((await grade({ type: 'not-contains-xml' }, 'plain')).reason).toBe('output does not contain well-formed XML (none found)')
    expect((await grade({ type: 'not-contains-xml' }, 'x <a/> y')).reason).toBe('expected output not to contain well-formed XML, got: "x <a/> y"')
  })

  it('skips comments, CDATA and processing instructions around the elements', async () => {
    expect((await grade(containsXml('a'), '<!-- note --> <?pi x?> <![CDATA[<z>]]> then <a/>')).passed).toBe(true)
    expect((await grade(containsXml(), '<!-- <a/> -->')).passed).toBe(false)
  })

  it('skips a stray end tag, and a start tag never closed does not hide what is inside it', async () => {
    expect((await grade(containsXml('a'), 'oops </b> then <a></a>')).passed).toBe(true)
    expect((await grade(containsXml('b'), '<a> open, then <b>x</b>')).passed).toBe(true)
  })

  it('closes the innermost start tag of a name first', async () => {
    expect((await grade(containsXml('a.c'), '<a> and <a><c/></a>')).reason).toBe('output contains well-formed XML with a.c')
  })

  it('takes a later element when an earlier candidate is malformed', async () => {
    expect((await grade(containsXml('b'), '<a x=1></a> <b/>')).passed).toBe(true)
    expect((await grade(containsXml('b.c'), '<a><b></a> <b><c/></b>')).passed).toBe(true)
  })

  it('takes the first element that has the paths, after ones that lack them', async () => {
    expect((await grade(containsXml('b'), '<a/> <b/>')).passed).toBe(true)
    expect((await grade(containsXml('b'), '<a><x/></a> and <b>1</b>')).reason).toBe('output contains well-formed XML with b')
  })

  it('paths start at the outermost element: one nested inside a well-formed element is not looked at alone', async () => {
    expect((await grade(containsXml('b.c'), '<a><b><c/></b></a>')).reason).toBe(
      'expected output to contain well-formed XML with b.c (the XML found lacks b.c), got: "<a><b><c/></b></a>"'
    )
    expect((await grade(containsXml('a.b.c'), '<a><b><c/></b></a>')).passed).toBe(true)
  })

  it('an element nested in a malformed one is looked at alone', async () => {
    expect((await grade(containsXml('b.c'), '<a x=1><b><c/></b></a>')).passed).toBe(true)
  })

  it('meets the paths with several elements together, an index counting the elements of that name', async () => {
    expect((await grade(containsXml('a.x, b.y'), '<a><x/></a> and then <b><y/></b>')).reason).toBe('output contains well-formed XML with a.x, b.y')
    expect((await grade(containsXml('a.1.y'), '<a><x/></a> <a><y/></a>')).passed).toBe(true)
    expect((await grade(containsXml('a.1.x'), '<a><x/></a> <a><y/></a>')).passed).toBe(false)
  })

  it('one element is not two: an index past it is missing', async () => {
    expect((await grade(containsXml('a.1'), '<a/>')).reason).toBe('expected output to contain well-formed XML with a.1 (the XML found lacks a.1), got: "<a/>"')
    expect((await grade(containsXml('a.1'), '<a/><a/>')).passed).toBe(true)
  })

  it('names what the elements found lack, together', async () => {
    expect((await grade(containsXml('a.x, b.z, c'), '<a><x/></a> and <b><y/></b>')).reason).toBe(
      'expected output to contain well-formed XML with a.x, b.z, c (the XML found lacks b.z, c), got: "<a><x/></a> and <b><y/></b>"'
    )
    expect((await grade(containsXml('q'), '<a/>')).reason).toBe('expected output to contain well-formed XML with q (the XML found lacks q), got: "<a/>"')
  })

  it('a tag whose name cannot start a name is text', async () => {
    expect((await grade(containsXml(), 'if x <1> y')).reason).toContain('(none found)')
    expect((await grade(containsXml(), 'a <1/> b')).reason).toContain('(none found)')
  })

  it('reads attributes, quoted with either quote and holding ">" or "/", as part of the tag', async () => {
    expect((await grade(containsXml('a.b'), `x <a t="1>2" u='/'><b k="v"/></a> y`)).passed).toBe(true)
  })
})

describe('a document without a root element', () => {
  it('is not well-formed XML, in saxes’s words: empty, blank, or only a declaration or comment', async () => {
    for (const output of ['', '  ', '<?xml version="1.0"?>', '<!-- c -->']) {
      const r = await grade({ type: 'is-xml' }, output)
      expect(r.passed).toBe(false)
      expect(r.reason).toMatch(/^expected output to be well-formed XML \(1:\d+: document must contain a root element\.\), got: /)
    }
  })
})
