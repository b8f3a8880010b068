/**
 * The HTML report (`--html`): one self-contained file — inline CSS and
 * script, nothing fetched — with the summary and a sortable, filterable table
 * of every case; a case opens on its input, expectation, both outputs, their
 * line diff, both trajectories and the assertion reasons. This module is the
 * page; beside it: view.ts (the cases as the table shows them), summary.ts,
 * redact.ts, and report.css / report.js with their generated assets.ts
 * (scripts/report-assets.mjs).
 *
 * Pure. Untrusted text (model output, inputs, reasons, names) never reaches the
 * HTML parser: the summary is escaped, the cases travel as JSON inside a
 * non-executable <script type="application/json"> with "<", ">" and "&" written
 * as \u escapes, and the page script shows them with textContent only. A
 * Content-Security-Policy allows no network and only this file's own script
 * and style (by hash), so even a missed escape could run nothing.
 */
import { escapeHtmlText, jsonForScript } from '../escape.js'
import { SCRIPT, SCRIPT_HASH, STYLE, STYLE_HASH } from './assets.js'
import { redactHeads } from './redact.js'
import { summaryHtml } from './summary.js'
import { FLIP_ORDER, filterValues, tableRows, viewsOf, type ViewOptions } from './view.js'
import type { ReportModel } from '../model.js'

export type HtmlOptions = ViewOptions

const CSP = `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'`

function selectOptions(values: readonly string[], all: string): string {
  return [`<option value="">${all}</option>`, ...values.map((v) => `<option value="${escapeHtmlText(v)}">${escapeHtmlText(v)}</option>`)].join('')
}

/**
 * The whole report as one HTML document, a piece at a time (to write with
 * writeTextAtomic): at 100,000 cases the page is ~60 MB, and neither it, nor
 * its data as one JSON string, nor a view of every case is ever held whole.
 */
export function* htmlPieces(model: ReportModel, options: HtmlOptions = {}): Generator<string> {
  const input = model
  // masked in the values themselves, before any of them is shown or made JSON
  const safe = redactHeads(input, options.redact)
  const redact = options.redact ?? ((text: string) => text)
  const title = redact(model.title)
  const rows = tableRows(input)
  const { flips, statuses } = filterValues(rows)
  // cost and latency columns for agents: runs whose target reported usage or tool calls
  const agentColumns = [input.current, input.baseline].some((run) => run?.cases.some((c) => c.usage !== undefined || c.toolCalls !== undefined) ?? false)
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>${escapeHtmlText(title)} — ${escapeHtmlText(model.status)}</title>
<style>${STYLE}</style>
</head>
<body>
${summaryHtml({ ...model, ...safe }, title, redact)}
<h2>Cases</h2>
<div class="controls">
<input id="filter" type="search" placeholder="Filter: words in the name, key, tags, input or output" aria-label="filter cases">
<select id="flip-filter" aria-label="flip">${selectOptions(flips, 'every flip')}</select>
<select id="status-filter" aria-label="status">${selectOptions(statuses, 'every status')}</select>
<button id="expand" type="button">open / close all</button>
<span id="count"></span>
</div>
<noscript><p class="note">The case table needs JavaScript; the summary above is complete without it.</p></noscript>
<table class="cases">
<thead><tr><th data-sort="case"><button type="button">case</button></th><th data-sort="status"><button type="button">status</button></th><th data-sort="flip"><button type="button">flip</button></th><th data-sort="tags"><button type="button">tags</button></th><th data-sort="score" class="num"><button type="button">score</button></th><th data-sort="duration" class="num"><button type="button">duration</button></th>${agentColumns ? '<th data-sort="cost" class="num"><button type="button">cost</button></th><th data-sort="latency" class="num"><button type="button">latency</button></th>' : ''}</tr></thead>
<tbody id="cases-body"></tbody>
</table>
<script type="application/json" id="evalgate-data">{"hasBaseline":${input.comparison.baseline !== null},"hasAgentColumns":${agentColumns},"flips":${jsonForScript(FLIP_ORDER)},"cases":[`
  let first = true
  for (const view of viewsOf(input, rows, options)) {
    yield `${first ? '' : ','}${jsonForScript(view)}`
    first = false
  }
  yield `]}</script>
<script>${SCRIPT}</script>
</body>
</html>
`
}
