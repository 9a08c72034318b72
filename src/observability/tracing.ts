/**
 * OpenTelemetry traces (issue 18): one span per HTTP request, one per call, and per turn one
 * span per stage (caller's speech → final transcript → LLM's first token → TTS's first byte →
 * first audio out), exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 *
 * The SDK and the exporter are imported only when tracing is on (`startTracing`), so a
 * process without an endpoint never loads them; what the rest of the code holds is the small
 * `Tracing` interface below, or nothing. Spans are parented explicitly (no global context
 * manager, no monkey-patching of modules): a call's stage spans are children of the call's span.
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';

export interface TracingConfig {
  /** Base URL of an OTLP/HTTP receiver; spans go to `<endpoint>/v1/traces` (the OTLP convention). */
  endpoint: string;
  /** `k=v,k2=v2`, sent with every export (e.g. an API key of a tracing vendor). */
  headers?: string;
  serviceName: string;
  /** Identifies this process among the instances (`service.instance.id`). */
  instanceId: string;
}

/** A span the caller ends; `end` takes an optional end time (Unix ms). */
export interface TraceSpan {
  setAttributes(attributes: Attributes): void;
  /** Marks the span failed with a reason (an error status). */
  fail(reason: string): void;
  end(endTimeMs?: number): void;
}

export interface Tracing {
  /** A root span (a request, a call). */
  start(name: string, attributes?: Attributes, startTimeMs?: number): TraceSpan;
  /** A span under `parent`, e.g. a stage of a call's turn, possibly in the past. */
  child(parent: TraceSpan, name: string, attributes?: Attributes, startTimeMs?: number): TraceSpan;
  /** Exports what is buffered. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

class OtelSpan implements TraceSpan {
  constructor(readonly span: Span) {}
  setAttributes(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }
  fail(reason: string): void {
    // SpanStatusCode.ERROR = 2 (a const enum of the API; the value is fixed by the OTLP spec).
    this.span.setStatus({ code: 2, message: reason });
  }
  end(endTimeMs?: number): void {
    this.span.end(endTimeMs);
  }
}

/** `k=v,k2=v2` → headers (values URL-decoded, as OTEL_EXPORTER_OTLP_HEADERS is written). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const i = pair.indexOf('=');
    if (i <= 0) continue;
    headers[decodeURIComponent(pair.slice(0, i).trim())] = decodeURIComponent(pair.slice(i + 1).trim());
  }
  return headers;
}

/** Loads the SDK and starts exporting; spans are batched and sent every second. */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  const [api, sdk, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const exporter = new OTLPTraceExporter({
    url: `${config.endpoint.replace(/\/+$/, '')}/v1/traces`,
    headers: parseOtlpHeaders(config.headers),
  });
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.instance.id': config.instanceId }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000, maxQueueSize: 8192 })],
  });
  const tracer: Tracer = provider.getTracer('switchboard');
  return {
    start: (name, attributes, startTimeMs) => new OtelSpan(tracer.startSpan(name, { attributes, startTime: startTimeMs })),
    child: (parent, name, attributes, startTimeMs) => {
      const context = api.trace.setSpan(api.ROOT_CONTEXT, (parent as OtelSpan).span);
      return new OtelSpan(tracer.startSpan(name, { attributes, startTime: startTimeMs }, context));
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
