// The HTML report's page script (report/html/index.ts): builds the case table from the
// JSON embedded in the page, sorts, filters and opens cases. Untrusted text is
// only ever set with textContent; every figure arrives formatted (html/view.ts).
// Inlined at build time (scripts/report-assets.mjs) and allowed by its hash.
;(function () {
  'use strict'
  var data = JSON.parse(document.getElementById('evalgate-data').textContent)
  var cases = data.cases
  var FLIPS = data.flips
  var STATUS = ['error', 'fail', 'not graded', 'not run', 'pass']
  var body = document.getElementById('cases-body')
  var filter = document.getElementById('filter')
  var flipFilter = document.getElementById('flip-filter')
  var statusFilter = document.getElementById('status-filter')
  var count = document.getElementById('count')
  var headers = Array.prototype.slice.call(document.querySelectorAll('th[data-sort]'))
  var sort = { key: 'flip', dir: 1 }
  var open = {}

  cases.forEach(function (c) {
    c.search = [c.key, c.name, c.status, c.flip, c.tags.join(' '), c.input, c.output || '', c.error || ''].join('\n').toLowerCase()
  })

  function el(tag, cls, text) {
    var e = document.createElement(tag)
    if (cls) e.className = cls
    if (text !== undefined && text !== null) e.textContent = text
    return e
  }
  // both runs' tool calls side by side; the first step that differs is highlighted on each side,
  // and where one trajectory ends before it, the step after its last says so
  function trajectoryBlock(t) {
    var wrap = el('div', 'trajectory')
    var grid = el('div', 'cols')
    ;[
      ['Baseline tool calls', t.baseline, 'baseline'],
      ['Current tool calls', t.current, 'current']
    ].forEach(function (side) {
      var calls = side[1]
      if (calls === null) {
        grid.appendChild(block(side[0], el('p', 'muted', 'not in the baseline')))
        return
      }
      // no toolCalls at all is not "called none": the trajectory checks could not check it
      if (t.unreported === side[2]) {
        grid.appendChild(block(side[0], el('p', 'muted', 'not reported')))
        return
      }
      var list = el('ol', 'steps')
      calls.forEach(function (step, i) {
        list.appendChild(el('li', i === t.first ? 'first-diff' : null, step))
      })
      if (t.first === calls.length) list.appendChild(el('li', 'first-diff ended', calls.length ? 'no further calls' : 'no tool calls'))
      else if (!calls.length) list.appendChild(el('li', 'muted', 'no tool calls'))
      grid.appendChild(block(side[0], list))
    })
    wrap.appendChild(grid)
    if (t.unreported)
      wrap.appendChild(el('p', 'trajectory-note', t.unreported === 'current' ? 'this run reported no tool calls' : 'the baseline reported no tool calls'))
    else if (t.first !== -1) wrap.appendChild(el('p', 'trajectory-note', 'first difference at step ' + (t.first + 1)))
    else if (t.baseline !== null) wrap.appendChild(el('p', 'trajectory-note', 'the same tool calls in both runs'))
    return wrap
  }
  // both runs' conversations side by side, a row per turn; the first turn where they part is highlighted
  function conversationBlock(v) {
    var wrap = el('div', 'conversation')
    if (v.why) wrap.appendChild(el('p', 'conversation-note', v.why))
    var table = el('table', 'turns')
    var head = el('tr')
    ;['', 'Baseline conversation', 'Current conversation'].forEach(function (h) {
      head.appendChild(el('th', null, h))
    })
    table.appendChild(head)
    var n = Math.max(v.baseline ? v.baseline.length : 0, v.current.length)
    for (var i = 0; i < n; i++) {
      var tr = el('tr', i + 1 === v.first ? 'first-diff' : i + 1 === v.diverged ? 'diverged' : null)
      tr.appendChild(el('td', 'turn-n', String(i + 1)))
      ;[v.baseline, v.current].forEach(function (side, k) {
        var td = el('td')
        var t = side && side[i]
        if (!t) td.appendChild(el('p', 'muted', side === null ? (k === 0 && data.hasBaseline ? 'not in the baseline' : 'no baseline') : 'no such turn'))
        else {
          td.appendChild(el('div', 'said user', t.user))
          td.appendChild(t.output !== null ? el('div', 'said agent', t.output) : el('div', 'said agent error', 'no reply: ' + (t.error || 'the target failed')))
          t.failed.forEach(function (a) {
            td.appendChild(el('div', 'turn-check', '✗ ' + a.type + ': ' + a.reason))
          })
        }
        tr.appendChild(td)
      })
      table.appendChild(tr)
    }
    wrap.appendChild(table)
    return wrap
  }
  function flipLabel(f) {
    return f === 'none' ? '—' : f
  }

  var sorters = {
    case: function (c) {
      return c.name.toLowerCase()
    },
    status: function (c) {
      return STATUS.indexOf(c.status)
    },
    flip: function (c) {
      return FLIPS.indexOf(c.flip)
    },
    tags: function (c) {
      return c.tags.join(', ').toLowerCase()
    },
    score: function (c) {
      return c.score
    },
    duration: function (c) {
      return c.durationMs
    },
    cost: function (c) {
      return c.costUsd
    },
    latency: function (c) {
      return c.latencyMs
    }
  }
  function compare(a, b) {
    var f = sorters[sort.key]
    var x = f(a),
      y = f(b)
    var xNone = x === null || x === '',
      yNone = y === null || y === ''
    // rows without a value stay last whichever the direction
    if (xNone !== yNone) return xNone ? 1 : -1
    if (!xNone && x !== y) return (x < y ? -1 : 1) * sort.dir
    return a.index - b.index
  }

  function visible(c) {
    var q = filter.value.trim().toLowerCase()
    if (flipFilter.value && c.flip !== flipFilter.value) return false
    if (statusFilter.value && c.status !== statusFilter.value) return false
    if (!q) return true
    return q.split(/\s+/).every(function (term) {
      return c.search.indexOf(term) !== -1
    })
  }

  function pre(text, cls) {
    return el('pre', cls, text)
  }
  function block(title, content) {
    var d = el('div')
    d.appendChild(el('h3', null, title))
    d.appendChild(content)
    return d
  }
  function outputBlock(title, output, error) {
    if (output !== null) return block(title, pre(output))
    return block(title, error !== null ? pre('no output; the target failed:\n' + error, 'error') : el('p', 'muted', 'no output'))
  }
  function diffBlock(diff) {
    var p = el('pre', 'diff')
    diff.forEach(function (line) {
      if (line.op === 'skip') {
        p.appendChild(el('div', 'skip', '… ' + line.count + ' unchanged lines'))
        return
      }
      var d = el('div', line.op === 'equal' ? 'eq' : line.op === 'delete' ? 'del' : 'ins')
      if (line.segments) {
        line.segments.forEach(function (s) {
          d.appendChild(s.changed ? el('mark', null, s.text) : document.createTextNode(s.text))
        })
      } else {
        d.textContent = line.text
      }
      p.appendChild(d)
    })
    return p
  }
  function assertionTable(list) {
    var t = el('table', 'assertions')
    list.forEach(function (a) {
      var tr = el('tr')
      tr.appendChild(el('td', a.passed ? 'ok' : 'no', a.passed ? '✓' : '✗'))
      tr.appendChild(el('td', null, a.type))
      tr.appendChild(el('td', 'num', a.score))
      var reason = el('td', null, a.reason)
      if (a.judge) {
        reason.appendChild(el('br'))
        reason.appendChild(el('span', 'muted', a.judge))
      }
      tr.appendChild(reason)
      t.appendChild(tr)
    })
    return t
  }

  function detail(c) {
    var wrap = el('div', 'case-detail')
    if (c.note) wrap.appendChild(el('p', 'case-note', c.note))
    // a conversation: both transcripts side by side instead of one input and output
    if (c.conversation) {
      if (c.expected !== null) wrap.appendChild(block('Expected (of the last reply)', pre(c.expected)))
      wrap.appendChild(conversationBlock(c.conversation))
      return rest(wrap, c)
    }
    var top = el('div', 'cols')
    top.appendChild(block('Input', pre(c.input)))
    top.appendChild(c.expected !== null ? block('Expected', pre(c.expected)) : el('div'))
    wrap.appendChild(top)
    var outs = el('div', 'cols')
    if (c.baseline) outs.appendChild(outputBlock('Baseline output (' + (c.baseline.passed ? 'passed' : 'failed') + ')', c.baseline.output, c.baseline.error))
    else outs.appendChild(block('Baseline output', el('p', 'muted', data.hasBaseline ? 'not in the baseline' : 'no baseline')))
    if (c.status === 'not run') outs.appendChild(block('Current output', el('p', 'muted', 'not run in this run')))
    else
      outs.appendChild(
        outputBlock('Current output (' + (c.status === 'pass' ? 'passed' : 'failed') + (c.trials ? ', ' + c.trials + ' trials' : '') + ')', c.output, c.error)
      )
    wrap.appendChild(outs)
    if (c.diff) wrap.appendChild(block('Diff, baseline → current', diffBlock(c.diff)))
    return rest(wrap, c)
  }
  // what every case shows below its outputs: tool calls and checks
  function rest(wrap, c) {
    if (c.trajectory) wrap.appendChild(trajectoryBlock(c.trajectory))
    if (c.assertions.length) wrap.appendChild(block('Assertions', assertionTable(c.assertions)))
    if (c.baseline && c.baseline.assertions.length) {
      wrap.appendChild(block('Baseline assertions', assertionTable(c.baseline.assertions)))
    }
    return wrap
  }

  function row(c) {
    var tr = el('tr', 'case-row' + (open[c.key] ? ' open' : ''))
    tr.setAttribute('data-key', c.key)
    var name = el('td')
    var toggle = el('button', 'toggle', open[c.key] ? '▾' : '▸')
    toggle.setAttribute('aria-expanded', open[c.key] ? 'true' : 'false')
    toggle.setAttribute('aria-label', 'show case ' + c.name)
    name.appendChild(toggle)
    name.appendChild(document.createTextNode(' ' + c.name))
    if (c.key !== c.name) name.appendChild(el('span', 'key', c.key))
    tr.appendChild(name)
    var st = el('td')
    st.appendChild(el('span', 'pill s-' + c.status.replace(' ', '-'), c.status + (c.trials ? ' ' + c.trials : '')))
    tr.appendChild(st)
    var fl = el('td')
    if (c.flip !== 'none') fl.appendChild(el('span', 'pill f-' + c.flip.replace(' ', '-'), flipLabel(c.flip)))
    else fl.textContent = '—'
    tr.appendChild(fl)
    var tg = el('td')
    c.tags.forEach(function (t) {
      tg.appendChild(el('span', 'tag', t))
    })
    tr.appendChild(tg)
    tr.appendChild(el('td', 'num score', c.cells.score))
    tr.appendChild(el('td', 'num duration', c.cells.duration))
    if (data.hasAgentColumns) {
      tr.appendChild(el('td', 'num cost', c.cells.cost))
      tr.appendChild(el('td', 'num latency', c.cells.latency))
    }
    tr.addEventListener('click', function () {
      open[c.key] = !open[c.key]
      render()
    })
    return tr
  }

  function render() {
    var shown = cases.filter(visible).sort(compare)
    var frag = document.createDocumentFragment()
    shown.forEach(function (c) {
      frag.appendChild(row(c))
      if (open[c.key]) {
        var tr = el('tr', 'detail')
        var td = el('td')
        td.colSpan = data.hasAgentColumns ? 8 : 6
        td.appendChild(detail(c))
        tr.appendChild(td)
        frag.appendChild(tr)
      }
    })
    body.textContent = ''
    body.appendChild(frag)
    var total = cases.length.toLocaleString('en-US') + (cases.length === 1 ? ' case' : ' cases')
    count.textContent = shown.length === cases.length ? total : shown.length.toLocaleString('en-US') + ' of ' + total
    headers.forEach(function (th) {
      if (th.getAttribute('data-sort') === sort.key) th.setAttribute('aria-sort', sort.dir === 1 ? 'ascending' : 'descending')
      else th.removeAttribute('aria-sort')
    })
  }

  headers.forEach(function (th) {
    th.querySelector('button').addEventListener('click', function () {
      var key = th.getAttribute('data-sort')
      sort = { key: key, dir: sort.key === key ? -sort.dir : 1 }
      render()
    })
  })
  ;[filter, flipFilter, statusFilter].forEach(function (input) {
    input.addEventListener('input', render)
  })
  document.getElementById('expand').addEventListener('click', function () {
    var any = cases.filter(visible).some(function (c) {
      return !open[c.key]
    })
    cases.filter(visible).forEach(function (c) {
      open[c.key] = any
    })
    render()
  })
  // open the regressions by default: they are what the reader came for
  cases.forEach(function (c) {
    if (c.flip === 'regressed' && cases.length <= 200) open[c.key] = true
  })
  render()
})()
