/**
 * is-html and contains-html (src/assertions/html.ts), case by case: the exact
 * reason of each verdict, so that each way the parser's tree is read is pinned.
 */
import { describe, expect, it } from '@jest/globals'
import { grade } from './helpers.js'

describe('is-html', () => {
  it('passes a fragment of HTML elements and says so', async () => {
    expect(await grade({ type: 'is-html' }, '<p>Hello</p>')).toEqual({ type: 'is-html', passed: true, score: 1, reason: 'output is HTML' })
  })

  it('fails an empty or blank output as empty', async () => {
    expect(await grade({ type: 'is-html' }, '')).toMatchObject({ passed: false, score: 0, reason: 'expected output to be HTML (the output is empty), got: ""' })
    expect((await grade({ type: 'is-html' }, ' \n\t ')).reason).toBe('expected output to be HTML (the output is empty), got: " \\n\\t "')
  })

  it('fails an XML document, whatever the case of its declaration, and with blanks before it', async () => {
    expect((await grade({ type: 'is-html' }, '<?xml version="1.0"?><note><to>x</to></note>')).reason).toBe(
      'expected output to be HTML (it is XML, not HTML), got: "<?xml version=\\"1.0\\"?><note><to>x</to></note>"'
    )
    // <a> is an HTML element: without the declaration this would pass
    expect(await grade({ type: 'is-html' }, '<?XML version="1.0"?><a href="x">y</a>')).toMatchObject({
      passed: false,
      reason: expect.stringContaining('(it is XML, not HTML)')
    })
    expect((await grade({ type: 'is-html' }, '\n  <?xml version="1.0"?><note>x</note>')).reason).toContain('(it is XML, not HTML)')
  })

  it('passes HTML that mentions an XML declaration inside it', async () => {
    expect((await grade({ type: 'is-html' }, '<p>The prolog <?xml version="1.0"?> starts a file</p>')).passed).toBe(true)
  })

  it('fails elements that are neither HTML nor custom elements', async () => {
    expect((await grade({ type: 'is-html' }, '<foo>bar</foo>')).reason).toBe('expected output to be HTML (it has no HTML element), got: "<foo>bar</foo>"')
  })

  it('passes a custom element (a name with a hyphen)', async () => {
    expect((await grade({ type: 'is-html' }, '<my-widget>hi</my-widget>')).passed).toBe(true)
  })

  it('fails text outside the tags', async () => {
    expect((await grade({ type: 'is-html' }, 'Hello <b>there</b>')).reason).toBe(
      'expected output to be HTML (it has text outside the HTML tags), got: "Hello <b>there</b>"'
    )
    // a table's stray text lands before the table, in the implied <body>
    expect((await grade({ type: 'is-html' }, '<table>stray</table>')).reason).toContain('(it has text outside the HTML tags)')
  })

  it('passes text inside a <body> the output wrote, and blanks between elements', async () => {
    expect((await grade({ type: 'is-html' }, '<body>Hello</body>')).passed).toBe(true)
    expect((await grade({ type: 'is-html' }, '<html><body>Hello</body></html>')).passed).toBe(true)
    expect((await grade({ type: 'is-html' }, '<p>a</p>\n\n<p>b</p>')).passed).toBe(true)
  })

  it('passes a frameset document, which has no <body>', async () => {
    expect((await grade({ type: 'is-html' }, '<frameset><frame src="a.html"></frameset>')).passed).toBe(true)
  })

  it('passes a <template>, whose children live in its content', async () => {
    expect((await grade({ type: 'is-html' }, '<template><b>x</b></template>')).passed).toBe(true)
  })

  it('not-is-html passes prose and fails HTML, with the reason worded for the verdict', async () => {
    expect((await grade({ type: 'not-is-html' }, 'just words')).reason).toBe('output is not HTML (it has text outside the HTML tags)')
    expect((await grade({ type: 'not-is-html' }, '<p>x</p>')).reason).toBe('expected output not to be HTML, got: "<p>x</p>"')
  })
})

describe('contains-html', () => {
  it('names the element it found', async () => {
    expect(await grade({ type: 'contains-html' }, 'Use <kbd>Ctrl</kbd> here')).toMatchObject({ passed: true, reason: 'output contains HTML (found <kbd>)' })
  })

  it('takes any element written with both its tags, and a lone custom element', async () => {
    expect((await grade({ type: 'contains-html' }, 'see <custom>x</custom>')).reason).toBe('output contains HTML (found <custom>)')
    expect((await grade({ type: 'contains-html' }, 'see <my-el> now')).reason).toBe('output contains HTML (found <my-el>)')
  })

  it('fails a lone unknown tag and a comparison', async () => {
    expect(await grade({ type: 'contains-html' }, 'write <example> here')).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected output to contain HTML, got: "write <example> here"'
    })
    expect((await grade({ type: 'contains-html' }, 'a < b > c')).passed).toBe(false)
  })

  it('fails stray tags: a lone </p>, and after a <body> tag the <p> the parser implies for it, which the output never wrote', async () => {
    expect((await grade({ type: 'contains-html' }, 'close it with </p> please')).reason).toBe(
      'expected output to contain HTML, got: "close it with </p> please"'
    )
    expect((await grade({ type: 'contains-html' }, 'see <body></p> now')).reason).toBe('expected output to contain HTML, got: "see <body></p> now"')
  })
})
