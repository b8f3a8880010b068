export { renderTrendHtml } from './html.js'
export { renderTrendMarkdown } from './markdown.js'
export { trendRow, type TrendRow } from './rows.js'
