/**
 * What an agent's OpenTelemetry SDK reads to export to evalgate:
 * the OTLP exporter's standard variables, and for a stdio process its
 * trial's context. The target's own `target.env` wins over each of them.
 */

/** The exporter's variables for the target's processes and module: `target.env`'s own settings of them win. */
export function exporterEnv(endpoint: string, own: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {}
  // an endpoint of the target's own (a collector of its own) is kept whole: ours would override it per signal
  if (own.OTEL_EXPORTER_OTLP_ENDPOINT === undefined && own.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT === undefined) {
    env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${endpoint}/v1/traces`
  }
  // the receiver speaks no gRPC, which Python's exporter defaults to
  if (own.OTEL_EXPORTER_OTLP_PROTOCOL === undefined && own.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL === undefined) env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/protobuf'
  return env
}

/**
 * A stdio trial's own variables: its trace context, and the resource
 * attribute that ties the process's spans to the trial even where its SDK
 * starts a trace of its own (added to the target's own resource attributes).
 */
export function stdioTrialEnv(traceparent: string, resourceAttributes: string | undefined): Record<string, string> {
  const traceId = traceparent.split('-')[1]!
  const trial = `evalgate.trial=${traceId}`
  return { TRACEPARENT: traceparent, OTEL_RESOURCE_ATTRIBUTES: resourceAttributes ? `${resourceAttributes},${trial}` : trial }
}
