/**
 * The HTML report's summary: the verdict and its reasons, a card per figure,
 * which runs were compared, the per-tag table. Built from the redacted heads
 * (html/redact.ts); every text is escaped here, the one place the page writes
 * record text as HTML.
 */
import { simulatedUserText } from '../conversation.js'
import { formatCount, formatDuration, formatPercent, formatScore, formatTime, plural, relativeAge, signed, signedPoints } from '../format.js'
import { escapeHtmlText } from '../escape.js'
import type { ReportModel } from '../model.js'

interface Card {
  label: string
  value: string
  detail?: string
  tone?: 'bad' | 'good' | 'warn'
}

/** The verdict's pill: the status and its colour, as the check shows it. */
const PILLS: Record<ReportModel['alert'], { tone: string; mark: string }> = {
  CAUTION: { tone: 'fail', mark: '✗' },
  WARNING: { tone: 'warn', mark: '!' },
  NOTE: { tone: 'pass', mark: '✓' },
  TIP: { tone: 'pass', mark: '✓' }
}

/**
 * The summary from the report model (its heads redacted by the caller);
 * `redact` masks the verdict's words, which may quote what a run printed.
 */
export function summaryHtml(model: ReportModel, title: string, redact: (text: string) => string = (t) => t): string {
  const { comparison: c, baseline, current } = model
  const e = (text: string) => escapeHtmlText(redact(text))
  const pill = PILLS[model.alert]
  const verdict = `<span class="verdict ${pill.tone}">${pill.mark} ${e(model.status)}</span>`
  const failures = model.reasons.length ? `<ul class="failures">${model.reasons.map((r) => `<li>${e(r.message)}</li>`).join('')}</ul>` : ''
  const notes = model.verdict.status === 'pass' ? [model.headline, ...model.notices] : [...model.notices]
  if (!current.complete && !model.verdict.reasons.some((r) => r.code === 'incomplete'))
    notes.push(`This run was cut short: ${plural(current.cases.length, 'case')} finished.`)

  const cards: Card[] = [
    {
      label: 'pass rate',
      value: formatPercent(c.current.passRate),
      detail: c.baseline
        ? `${signedPoints(c.passRateDelta ?? 0)} from ${formatPercent(c.baseline.passRate)}`
        : `${formatCount(c.current.passed)} of ${formatCount(c.current.total)} cases`,
      tone: c.passRateDelta !== null && c.passRateDelta < 0 ? 'bad' : undefined
    }
  ]
  if (c.current.meanScore !== null || c.baseline?.meanScore != null) {
    cards.push({
      label: 'mean score',
      value: c.current.meanScore === null ? '—' : formatScore(c.current.meanScore),
      detail: c.baseline
        ? c.meanScoreDelta === null
          ? `baseline ${c.baseline.meanScore === null ? '—' : formatScore(c.baseline.meanScore)}`
          : `${signed(c.meanScoreDelta, 3)} from ${formatScore(c.baseline.meanScore!)}`
        : undefined,
      tone: c.meanScoreDelta !== null && c.meanScoreDelta < 0 ? 'bad' : undefined
    })
  }
  if (c.baseline) {
    cards.push(
      { label: 'regressed', value: formatCount(c.regressed.length), tone: c.regressed.length ? 'bad' : undefined },
      { label: 'fixed', value: formatCount(c.fixed.length), tone: c.fixed.length ? 'good' : undefined },
      { label: 'flaky', value: formatCount(c.flaky.length), tone: c.flaky.length ? 'warn' : undefined },
      { label: 'added · removed · changed', value: `${formatCount(c.added.length)} · ${formatCount(c.removed.length)} · ${formatCount(c.changed.length)}` }
    )
  }
  const errors = current.cases.filter((x) => x.error !== null).length
  if (errors) cards.push({ label: 'target errors', value: formatCount(errors), tone: 'bad' })
  if (c.notGraded.length) cards.push({ label: 'not graded (judge failed)', value: formatCount(c.notGraded.length), tone: 'warn' })
  const cardHtml = cards
    .map(
      (k) =>
        `<div class="card${k.tone ? ` ${k.tone}` : ''}"><div class="label">${escapeHtmlText(k.label)}</div><div class="value">${escapeHtmlText(k.value)}</div>${k.detail ? `<div class="detail">${escapeHtmlText(k.detail)}</div>` : ''}</div>`
    )
    .join('')

  const meta: string[] = [
    `run <b>${e(current.name)}</b> at ${e(formatTime(current.createdAt))}${current.git.sha ? `, commit <code>${e(current.git.sha.slice(0, 7))}</code>` : ''}`
  ]
  if (baseline) {
    const age = relativeAge(baseline.createdAt, current.createdAt)
    const ref = baseline.git.ref ? ` on <code>${e(baseline.git.ref.replace(/^refs\/(heads|tags)\//, ''))}</code>` : ''
    meta.push(
      `baseline ${baseline.git.sha ? `commit <code>${e(baseline.git.sha.slice(0, 7))}</code>` : 'of unknown commit'}${ref}${age ? `, ${e(age)}` : ''}${baseline.git.runId ? `, ${e(model.links.runNoun ?? 'workflow run')} ${e(baseline.git.runId)}` : ''}`
    )
  }
  const { judge, durationMs } = current.summary
  const footer = [`duration ${formatDuration(durationMs)}`, plural(current.cases.length, 'case')]
  if (judge.calls || judge.reused || judge.tokens)
    footer.push(
      `judge: ${plural(judge.calls, 'call')}, ${formatCount(judge.reused)} reused, ${plural(judge.errors, 'error')}, ${plural(judge.tokens, 'token')}`
    )
  const user = simulatedUserText(judge)
  if (user) footer.push(user)
  footer.push(`evalgate ${e(current.tool.version)}`)

  const tags = c.tags.length
    ? `<details class="tags"><summary>By tag (${formatCount(c.tags.length)})</summary><table><thead><tr><th>tag</th>${c.baseline ? '<th>baseline</th>' : ''}<th>pass rate</th><th>cases</th>${c.baseline ? '<th>regressed</th>' : ''}</tr></thead><tbody>${c.tags
        .map(
          (t) =>
            `<tr><td>${e(t.tag)}</td>${c.baseline ? `<td>${t.baselinePassRate === null ? '—' : formatPercent(t.baselinePassRate)}</td>` : ''}<td>${formatPercent(t.currentPassRate)}</td><td>${formatCount(t.total)}</td>${c.baseline ? `<td>${formatCount(t.regressed)}</td>` : ''}</tr>`
        )
        .join('')}</tbody></table></details>`
    : ''

  return `<header><h1>${e(title)} ${verdict}</h1>${failures}${notes.map((n) => `<p class="note">${e(n)}</p>`).join('')}
<p class="meta">${meta.join('<br>')}</p></header>
<section class="cards">${cardHtml}</section>
${tags}
<p class="meta small">${footer.join(' · ')}</p>`
}
