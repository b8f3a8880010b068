import { htmlPieces, type HtmlOptions } from '../../src/report/html/index.js'
import { buildReport, type ReportInput } from '../../src/report/model.js'

/** The HTML report of a comparison (through its report model) as one string, joined from the pieces the CLI writes. */
export const renderHtml = (input: ReportInput, options?: HtmlOptions): string => [...htmlPieces(buildReport(input), options)].join('')
