/**
 * OTLP/HTTP trace exports (ExportTraceServiceRequest) as spans: the JSON
 * encoding (ids in hex, 64-bit integers as numbers or decimal text) and the
 * protobuf one, decoded by protobufjs against OTLP's own message definitions
 * (otlp-proto.ts). A body that is neither is an OtlpError: the receiver
 * answers 400 and the run goes on.
 */
import protobuf from 'protobufjs/light.js'
import { OTLP_TRACE_PROTO } from './otlp-proto.js'
import type { AttributeValue, Span } from './spans.js'

export class OtlpError extends Error {}

/** Attribute values nested deeper than this are no telemetry anyone sends: the body is refused. */
const MAX_DEPTH = 32

let requestType: protobuf.Type | undefined

function exportRequest(): protobuf.Type {
  requestType ??= protobuf.Root.fromJSON(OTLP_TRACE_PROTO).lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest')
  return requestType
}

/** The spans of an `application/x-protobuf` body. */
export function decodeProtobuf(body: Uint8Array): Span[] {
  let message: unknown
  try {
    message = exportRequest().decode(body)
  } catch (err) {
    throw new OtlpError(`not an OTLP protobuf ExportTraceServiceRequest: ${(err as Error).message}`)
  }
  return spansOf(message)
}

/** The spans of an `application/json` body. */
export function decodeJson(body: string): Span[] {
  let message: unknown
  try {
    message = JSON.parse(body)
  } catch (err) {
    throw new OtlpError(`not JSON: ${(err as Error).message}`)
  }
  if (!isObject(message) || !Array.isArray(message.resourceSpans)) throw new OtlpError('not an OTLP ExportTraceServiceRequest: no resourceSpans list')
  return spansOf(message)
}

type Obj = Record<string, unknown>

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

/** The spans of a decoded request, either encoding; spans without valid ids are left out. */
function spansOf(message: unknown): Span[] {
  const spans: Span[] = []
  for (const resourceSpans of list((message as Obj).resourceSpans)) {
    if (!isObject(resourceSpans)) continue
    const resource = isObject(resourceSpans.resource) ? attributesOf(resourceSpans.resource.attributes) : {}
    const trial = typeof resource['evalgate.trial'] === 'string' ? resource['evalgate.trial'] : undefined
    // scopeSpans; instrumentationLibrarySpans in exporters older than OTLP 0.15
    for (const scope of [...list(resourceSpans.scopeSpans), ...list(resourceSpans.instrumentationLibrarySpans)]) {
      if (!isObject(scope)) continue
      for (const raw of list(scope.spans)) {
        const span = isObject(raw) ? spanOf(raw, trial) : undefined
        if (span) spans.push(span)
      }
    }
  }
  return spans
}

function spanOf(raw: Obj, trial: string | undefined): Span | undefined {
  const traceId = idOf(raw.traceId, 16)
  const spanId = idOf(raw.spanId, 8)
  if (!traceId || !spanId) return undefined
  const status = isObject(raw.status) ? raw.status : {}
  const span: Span = {
    traceId,
    spanId,
    name: typeof raw.name === 'string' ? raw.name : '',
    startNs: nanos(raw.startTimeUnixNano),
    endNs: nanos(raw.endTimeUnixNano),
    attributes: attributesOf(raw.attributes),
    statusCode: statusCodeOf(status.code)
  }
  const parent = idOf(raw.parentSpanId, 8)
  if (parent) span.parentSpanId = parent
  if (typeof status.message === 'string' && status.message !== '') span.statusMessage = status.message
  if (trial !== undefined) span.trial = trial
  return span
}

/** An id as lower-case hex: bytes (protobuf) or hex text (JSON) of the right length, not all zero. */
function idOf(value: unknown, bytes: number): string | undefined {
  let hex: string | undefined
  if (value instanceof Uint8Array) hex = value.length === bytes ? Buffer.from(value.buffer, value.byteOffset, value.length).toString('hex') : undefined
  else if (typeof value === 'string' && value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value)) hex = value.toLowerCase()
  return hex && !/^0+$/.test(hex) ? hex : undefined
}

/** Unix nanoseconds: a decimal text or number (JSON), a Long (protobuf); anything else is 0. */
function nanos(value: unknown): bigint {
  try {
    if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value)
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
    if (isObject(value) && typeof value.low === 'number' && typeof value.high === 'number') return BigInt(String(value))
  } catch {
    // not a time: 0 below
  }
  return 0n
}

/** OTLP's StatusCode: 0 unset, 1 ok, 2 error (JSON may spell it STATUS_CODE_ERROR). */
function statusCodeOf(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value
  if (value === 'STATUS_CODE_OK') return 1
  if (value === 'STATUS_CODE_ERROR') return 2
  return 0
}

function attributesOf(value: unknown, depth = 0): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {}
  for (const kv of list(value)) {
    if (!isObject(kv) || typeof kv.key !== 'string') continue
    // an own property even for "__proto__": attribute keys are data
    Object.defineProperty(out, kv.key, { value: anyValue(kv.value, depth), enumerable: true, configurable: true, writable: true })
  }
  return out
}

/** OTLP's AnyValue as plain JSON. */
function anyValue(value: unknown, depth: number): AttributeValue {
  if (depth > MAX_DEPTH) throw new OtlpError(`an attribute value is nested deeper than ${MAX_DEPTH} levels`)
  if (!isObject(value)) return null
  // protobufjs names the member of the oneof that is set; in JSON it is the one key there
  const which = typeof value.value === 'string' && value.value in value ? value.value : Object.keys(value).find((k) => k.endsWith('Value'))
  const v = which === undefined ? undefined : value[which]
  switch (which) {
    case 'stringValue':
      return typeof v === 'string' ? v : null
    case 'boolValue':
      return v === true
    case 'intValue':
      return integer(v)
    case 'doubleValue':
      return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null
    case 'arrayValue':
      return isObject(v) ? list(v.values).map((item) => anyValue(item, depth + 1)) : []
    case 'kvlistValue':
      return isObject(v) ? attributesOf(v.values, depth + 1) : {}
    case 'bytesValue':
      return v instanceof Uint8Array ? Buffer.from(v).toString('base64') : typeof v === 'string' ? v : null
    default:
      return null
  }
}

/** An int64 as a number when it is exact, else as its decimal text. */
function integer(value: unknown): AttributeValue {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : isObject(value) ? String(value) : undefined
  if (text === undefined || !/^-?\d+$/.test(text)) return typeof value === 'number' ? value : null
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : text
}
