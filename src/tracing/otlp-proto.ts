/**
 * OTLP's trace export messages (opentelemetry-proto v1: collector/trace/v1,
 * trace/v1, resource/v1, common/v1; Apache-2.0), as protobufjs reads
 * definitions: the fields evalgate reads, with their numbers and wire types
 * as the .proto files give them. Fields left out here (events, links, trace
 * state, flags, kind, dropped counts, schema URLs) are skipped by the decoder
 * as protobuf skips any unknown field.
 */
import type { INamespace } from 'protobufjs/light.js'

const KEY_VALUE = 'opentelemetry.proto.common.v1.KeyValue'
const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id })

export const OTLP_TRACE_PROTO: INamespace = {
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
}
