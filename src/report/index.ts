export { escapeHtml, escapeInline, fencedBlock, inlineCode, neutraliseReferences, truncate } from './escape.js'
export { formatDuration, relativeAge } from '../compare/format.js'
export { DEFAULT_MAX_LENGTH, renderReport, type ReportInput, type ReportOptions } from './markdown.js'
export { renderShardSummary, type ShardSummaryInput } from './shard.js'
