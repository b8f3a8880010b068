/**
 * What an AWS endpoint does with a SigV4-signed request, written for the
 * tests from AWS's description of Signature Version 4 (independently of
 * the signer evalgate uses): the canonical request from the method, the
 * path as received (each segment URI-encoded again, as every service but S3
 * does), the sorted query, the signed headers and the body's SHA-256; the
 * string to sign; the key derived from the secret, date, region and
 * service; the signature compared. Checked against AWS's published test
 * vectors in __tests__/providers/bedrock.test.ts.
 */
import { createHash, createHmac } from 'node:crypto'

export interface SignedRequest {
  method: string
  /** path and query as received */
  url: string
  headers: Record<string, string | string[] | undefined>
  /** the body as received */
  raw: string
}

export interface SigV4Check {
  valid: boolean
  accessKeyId?: string
  /** `<date>/<region>/<service>/aws4_request` */
  scope?: string
  signedHeaders?: string[]
  why?: string
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex')
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest()

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

function header(headers: SignedRequest['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(',') : value
}

export function verifySigV4(request: SignedRequest, secretAccessKey: string): SigV4Check {
  const auth = header(request.headers, 'authorization')
  const m = auth && /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth)
  if (!m) return { valid: false, why: `no SigV4 authorization header: ${auth}` }
  const [, accessKeyId, scope, signed, signature] = m as unknown as [string, string, string, string, string]
  const date = header(request.headers, 'x-amz-date')
  if (!date) return { valid: false, why: 'no x-amz-date' }
  const [, region, service] = scope.split('/')
  const [path, query = ''] = request.url.split('?')
  const canonicalUri = path!
    .split('/')
    .map((segment) => uriEncode(segment))
    .join('/')
  const canonicalQuery = query
    .split('&')
    .filter(Boolean)
    .map((pair) => pair.split('=').map((p) => uriEncode(decodeURIComponent(p))))
    .sort(([a, x], [b, y]) => (a! < b! ? -1 : a! > b! ? 1 : x! < y! ? -1 : 1))
    .map(([k, v]) => `${k}=${v ?? ''}`)
    .join('&')
  const names = signed.split(';')
  const canonicalHeaders = names.map((n) => `${n}:${(header(request.headers, n) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('')
  const canonical = [request.method, canonicalUri, canonicalQuery, canonicalHeaders, signed, sha256(request.raw)].join('\n')
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonical)].join('\n')
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date.slice(0, 8)), region!), service!), 'aws4_request')
  const expected = createHmac('sha256', key).update(toSign, 'utf8').digest('hex')
  return expected === signature
    ? { valid: true, accessKeyId, scope, signedHeaders: names }
    : { valid: false, accessKeyId, scope, signedHeaders: names, why: `signature mismatch; canonical request:\n${canonical}` }
}
