export const id = 619;
export const ids = [619];
export const modules = {

/***/ 92619:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  MAX_BODY_BYTES: () => (/* binding */ MAX_BODY_BYTES),
  TRACES_PATH: () => (/* binding */ TRACES_PATH),
  startReceiver: () => (/* binding */ startReceiver)
});

// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(37067);
// EXTERNAL MODULE: external "node:zlib"
var external_node_zlib_ = __webpack_require__(38522);
// EXTERNAL MODULE: ./node_modules/protobufjs/light.js
var light = __webpack_require__(80365);
var light_default = /*#__PURE__*/__webpack_require__.n(light);
;// CONCATENATED MODULE: ./src/tracing/otlp-proto.ts
const KEY_VALUE = 'opentelemetry.proto.common.v1.KeyValue';
const repeated = (type, id) => ({ rule: 'repeated', type, id });
const OTLP_TRACE_PROTO = {
    nested: {
        opentelemetry: {
            nested: {
                proto: {
                    nested: {
                        common: {
                            nested: {
                                v1: {
                                    nested: {
                                        AnyValue: {
                                            oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
                                            fields: {
                                                stringValue: { type: 'string', id: 1 },
                                                boolValue: { type: 'bool', id: 2 },
                                                intValue: { type: 'int64', id: 3 },
                                                doubleValue: { type: 'double', id: 4 },
                                                arrayValue: { type: 'ArrayValue', id: 5 },
                                                kvlistValue: { type: 'KeyValueList', id: 6 },
                                                bytesValue: { type: 'bytes', id: 7 }
                                            }
                                        },
                                        ArrayValue: { fields: { values: repeated('AnyValue', 1) } },
                                        KeyValueList: { fields: { values: repeated('KeyValue', 1) } },
                                        KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } }
                                    }
                                }
                            }
                        },
                        resource: {
                            nested: { v1: { nested: { Resource: { fields: { attributes: repeated(KEY_VALUE, 1) } } } } }
                        },
                        trace: {
                            nested: {
                                v1: {
                                    nested: {
                                        ResourceSpans: {
                                            fields: { resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 }, scopeSpans: repeated('ScopeSpans', 2) }
                                        },
                                        ScopeSpans: { fields: { spans: repeated('Span', 2) } },
                                        Span: {
                                            fields: {
                                                traceId: { type: 'bytes', id: 1 },
                                                spanId: { type: 'bytes', id: 2 },
                                                parentSpanId: { type: 'bytes', id: 4 },
                                                name: { type: 'string', id: 5 },
                                                startTimeUnixNano: { type: 'fixed64', id: 7 },
                                                endTimeUnixNano: { type: 'fixed64', id: 8 },
                                                attributes: repeated(KEY_VALUE, 9),
                                                status: { type: 'Status', id: 15 }
                                            }
                                        },
                                        // StatusCode is an enum on the wire as an int32 varint: read as the number
                                        Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } }
                                    }
                                }
                            }
                        },
                        collector: {
                            nested: {
                                trace: {
                                    nested: {
                                        v1: {
                                            nested: {
                                                ExportTraceServiceRequest: { fields: { resourceSpans: repeated('opentelemetry.proto.trace.v1.ResourceSpans', 1) } }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
};

;// CONCATENATED MODULE: ./src/tracing/decode.ts
/**
 * OTLP/HTTP trace exports (ExportTraceServiceRequest) as spans: the JSON
 * encoding (ids in hex, 64-bit integers as numbers or decimal text) and the
 * protobuf one, decoded by protobufjs against OTLP's own message definitions
 * (otlp-proto.ts). A body that is neither is an OtlpError: the receiver
 * answers 400 and the run goes on.
 */


class OtlpError extends Error {
}
/** Attribute values nested deeper than this are no telemetry anyone sends: the body is refused. */
const MAX_DEPTH = 32;
let requestType;
function exportRequest() {
    requestType ??= light_default().Root.fromJSON(OTLP_TRACE_PROTO).lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
    return requestType;
}
/** The spans of an `application/x-protobuf` body. */
function decodeProtobuf(body) {
    let message;
    try {
        message = exportRequest().decode(body);
    }
    catch (err) {
        throw new OtlpError(`not an OTLP protobuf ExportTraceServiceRequest: ${err.message}`);
    }
    return spansOf(message);
}
/** The spans of an `application/json` body. */
function decodeJson(body) {
    let message;
    try {
        message = JSON.parse(body);
    }
    catch (err) {
        throw new OtlpError(`not JSON: ${err.message}`);
    }
    if (!isObject(message) || !Array.isArray(message.resourceSpans))
        throw new OtlpError('not an OTLP ExportTraceServiceRequest: no resourceSpans list');
    return spansOf(message);
}
function isObject(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const list = (value) => (Array.isArray(value) ? value : []);
/** The spans of a decoded request, either encoding; spans without valid ids are left out. */
function spansOf(message) {
    const spans = [];
    for (const resourceSpans of list(message.resourceSpans)) {
        if (!isObject(resourceSpans))
            continue;
        const resource = isObject(resourceSpans.resource) ? attributesOf(resourceSpans.resource.attributes) : {};
        const trial = typeof resource['evalgate.trial'] === 'string' ? resource['evalgate.trial'] : undefined;
        // scopeSpans; instrumentationLibrarySpans in exporters older than OTLP 0.15
        for (const scope of [...list(resourceSpans.scopeSpans), ...list(resourceSpans.instrumentationLibrarySpans)]) {
            if (!isObject(scope))
                continue;
            for (const raw of list(scope.spans)) {
                const span = isObject(raw) ? spanOf(raw, trial) : undefined;
                if (span)
                    spans.push(span);
            }
        }
    }
    return spans;
}
function spanOf(raw, trial) {
    const traceId = idOf(raw.traceId, 16);
    const spanId = idOf(raw.spanId, 8);
    if (!traceId || !spanId)
        return undefined;
    const status = isObject(raw.status) ? raw.status : {};
    const span = {
        traceId,
        spanId,
        name: typeof raw.name === 'string' ? raw.name : '',
        startNs: nanos(raw.startTimeUnixNano),
        endNs: nanos(raw.endTimeUnixNano),
        attributes: attributesOf(raw.attributes),
        statusCode: statusCodeOf(status.code)
    };
    const parent = idOf(raw.parentSpanId, 8);
    if (parent)
        span.parentSpanId = parent;
    if (typeof status.message === 'string' && status.message !== '')
        span.statusMessage = status.message;
    if (trial !== undefined)
        span.trial = trial;
    return span;
}
/** An id as lower-case hex: bytes (protobuf) or hex text (JSON) of the right length, not all zero. */
function idOf(value, bytes) {
    let hex;
    if (value instanceof Uint8Array)
        hex = value.length === bytes ? Buffer.from(value.buffer, value.byteOffset, value.length).toString('hex') : undefined;
    else if (typeof value === 'string' && value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value))
        hex = value.toLowerCase();
    return hex && !/^0+$/.test(hex) ? hex : undefined;
}
/** Unix nanoseconds: a decimal text or number (JSON), a Long (protobuf); anything else is 0. */
function nanos(value) {
    try {
        if (typeof value === 'string' && /^\d+$/.test(value))
            return BigInt(value);
        if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
            return BigInt(value);
        if (isObject(value) && typeof value.low === 'number' && typeof value.high === 'number')
            return BigInt(String(value));
    }
    catch {
        // not a time: 0 below
    }
    return 0n;
}
/** OTLP's StatusCode: 0 unset, 1 ok, 2 error (JSON may spell it STATUS_CODE_ERROR). */
function statusCodeOf(value) {
    if (typeof value === 'number' && Number.isInteger(value))
        return value;
    if (value === 'STATUS_CODE_OK')
        return 1;
    if (value === 'STATUS_CODE_ERROR')
        return 2;
    return 0;
}
function attributesOf(value, depth = 0) {
    const out = {};
    for (const kv of list(value)) {
        if (!isObject(kv) || typeof kv.key !== 'string')
            continue;
        // an own property even for "__proto__": attribute keys are data
        Object.defineProperty(out, kv.key, { value: anyValue(kv.value, depth), enumerable: true, configurable: true, writable: true });
    }
    return out;
}
/** OTLP's AnyValue as plain JSON. */
function anyValue(value, depth) {
    if (depth > MAX_DEPTH)
        throw new OtlpError(`an attribute value is nested deeper than ${MAX_DEPTH} levels`);
    if (!isObject(value))
        return null;
    // protobufjs names the member of the oneof that is set; in JSON it is the one key there
    const which = typeof value.value === 'string' && value.value in value ? value.value : Object.keys(value).find((k) => k.endsWith('Value'));
    const v = which === undefined ? undefined : value[which];
    switch (which) {
        case 'stringValue':
            return typeof v === 'string' ? v : null;
        case 'boolValue':
            return v === true;
        case 'intValue':
            return integer(v);
        case 'doubleValue':
            return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
        case 'arrayValue':
            return isObject(v) ? list(v.values).map((item) => anyValue(item, depth + 1)) : [];
        case 'kvlistValue':
            return isObject(v) ? attributesOf(v.values, depth + 1) : {};
        case 'bytesValue':
            return v instanceof Uint8Array ? Buffer.from(v).toString('base64') : typeof v === 'string' ? v : null;
        default:
            return null;
    }
}
/** An int64 as a number when it is exact, else as its decimal text. */
function integer(value) {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : isObject(value) ? String(value) : undefined;
    if (text === undefined || !/^-?\d+$/.test(text))
        return typeof value === 'number' ? value : null;
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : text;
}

;// CONCATENATED MODULE: ./src/tracing/receiver.ts
/**
 * The OTLP/HTTP trace receiver: `POST /v1/traces` on 127.0.0.1,
 * `application/json` or `application/x-protobuf`, gzip or not. Whatever an
 * agent sends, the run goes on and memory stays bounded: a body over
 * `maxBodyBytes` before or after decompression gets 413 (and is not read
 * further), one that is not OTLP gets 400, another media type 415, and while
 * more than `maxBufferedBytes` of bodies are being read at once the next gets
 * 503 (exporters retry it). Spans go to the collector, which drops those of
 * traces no trial opened.
 */



const MAX_BODY_BYTES = 10 * 1024 * 1024;
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
const TRACES_PATH = '/v1/traces';
class Refusal extends Error {
    status;
    constructor(status, message) {
        super(message);
        this.status = status;
    }
}
async function startReceiver(options) {
    const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
    const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    const stats = { exports: 0, refused: {} };
    let buffered = 0;
    const refuse = (req, res, status, message) => {
        stats.refused[status] = (stats.refused[status] ?? 0) + 1;
        // the rest of a refused body is not read: the connection closes once the answer is out
        res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', ...(status === 503 ? { 'retry-after': '1' } : {}) });
        res.end(`${message}\n`, () => req.destroy());
    };
    const server = (0,external_node_http_.createServer)((req, res) => {
        const url = req.url ?? '';
        if (url.split('?')[0] !== TRACES_PATH)
            return refuse(req, res, 404, `evalgate receives traces at POST ${TRACES_PATH} (OTLP/HTTP)`);
        if (req.method !== 'POST')
            return refuse(req, res, 405, `POST ${TRACES_PATH}`);
        const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (type !== 'application/json' && type !== 'application/x-protobuf')
            return refuse(req, res, 415, `send application/json or application/x-protobuf (OTLP/HTTP); got ${type || 'no content type'}`);
        const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
        if (encoding !== 'gzip' && encoding !== 'identity')
            return refuse(req, res, 415, `content-encoding ${encoding}: send gzip or none`);
        const declared = Number(req.headers['content-length']);
        if (declared > maxBody)
            return refuse(req, res, 413, `the body is over ${maxBody} bytes`);
        const chunks = [];
        let size = 0;
        let done = false;
        const release = () => {
            buffered -= size;
            size = 0;
        };
        const fail = (status, message) => {
            if (done)
                return;
            done = true;
            release();
            refuse(req, res, status, message);
        };
        req.on('data', (chunk) => {
            if (done)
                return;
            if (size + chunk.length > maxBody)
                return fail(413, `the body is over ${maxBody} bytes`);
            if (buffered + chunk.length > maxBuffered)
                return fail(503, 'too many exports at once: retry');
            size += chunk.length;
            buffered += chunk.length;
            chunks.push(chunk);
        });
        req.on('error', () => {
            if (!done) {
                done = true;
                release();
            }
        });
        req.on('end', () => {
            if (done)
                return;
            done = true;
            const body = Buffer.concat(chunks, size);
            chunks.length = 0;
            release();
            try {
                const intake = options.onSpans(decode(body, type, encoding, maxBody));
                stats.exports++;
                answer(res, type, intake);
            }
            catch (err) {
                if (err instanceof Refusal)
                    return refuse(req, res, err.status, err.message);
                refuse(req, res, 400, err instanceof OtlpError ? err.message : `cannot read the export: ${err.message}`);
            }
        });
    });
    // a stuck exporter cannot hold a connection for the whole run
    server.requestTimeout = 30_000;
    server.headersTimeout = 10_000;
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, '127.0.0.1', () => {
            server.off('error', reject);
            resolve();
        });
    });
    const { port } = server.address();
    return {
        url: `http://127.0.0.1:${port}`,
        stats,
        close: () => new Promise((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
        })
    };
}
function decode(body, type, encoding, maxBody) {
    let raw = body;
    if (encoding === 'gzip') {
        try {
            raw = (0,external_node_zlib_.gunzipSync)(body, { maxOutputLength: maxBody });
        }
        catch (err) {
            if (err.code === 'ERR_BUFFER_TOO_LARGE')
                throw new Refusal(413, `the body is over ${maxBody} bytes once decompressed`);
            throw new OtlpError(`content-encoding is gzip but the body is not: ${err.message}`);
        }
    }
    return type === 'application/json' ? decodeJson(raw.toString('utf8')) : decodeProtobuf(raw);
}
/** 200; spans not taken (unknown traces, late, over a trial's cap) are reported as OTLP's partial success. */
function answer(res, type, intake) {
    if (type === 'application/x-protobuf') {
        // an empty ExportTraceServiceResponse
        res.writeHead(200, { 'content-type': 'application/x-protobuf' });
        return void res.end();
    }
    const body = intake.rejected > 0
        ? { partialSuccess: { rejectedSpans: String(intake.rejected), errorMessage: 'spans of traces no running evalgate trial opened, or over its limit' } }
        : {};
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
}


/***/ })

};
