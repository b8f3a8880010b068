import { htmlPieces } from '../../src/report/html/index.js'

/** The HTML report as one string, joined from the pieces the CLI writes. */
export const renderHtml = (...args: Parameters<typeof htmlPieces>): string => [...htmlPieces(...args)].join('')
