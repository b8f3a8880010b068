export { escapeHtml, escapeInline, fencedBlock, inlineCode, neutraliseReferences, truncate } from './escape.js'
export { DEFAULT_MAX_LENGTH, formatDuration, relativeAge, renderReport, type ReportInput, type ReportOptions } from './markdown.js'
export { renderShardSummary, type ShardSummaryInput } from './shard.js'
