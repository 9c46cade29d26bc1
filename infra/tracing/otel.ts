import { diag, DiagLogLevel, type Tracer, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../logger';

/** A process's tracing: its tracer, and what the Temporal interceptors and shutdown need. */
export interface Tracing {
  tracer: Tracer;
  resource: Resource;
  /** Workflow spans (made in the workflow sandbox) are handed to it through a sink. */
  spanProcessor: SpanProcessor;
  /** Exports what is still buffered, then stops: called last in a graceful shutdown. */
  shutdown(): Promise<void>;
}

/**
 * The SDK, registered as the process's global tracer provider (the Temporal interceptors use the
 * global propagator and context manager). The exporter reads the standard variables itself
 * (OTEL_EXPORTER_OTLP_ENDPOINT, …_TRACES_ENDPOINT, …_HEADERS, …_TIMEOUT, …_COMPRESSION) and sends
 * OTLP/HTTP with JSON bodies to `<endpoint>/v1/traces`; spans go in batches (every 5 s, or 512).
 */
export function startOtel(opts: { serviceName: string; logger: Logger }): Tracing {
  // The SDK's own troubles (an export the collector refused or never answered) go to our log, as warnings.
  const say = (message: string, ...args: unknown[]) => opts.logger.warn({ source: 'opentelemetry', detail: args.map(String).join(' ') }, message);
  diag.setLogger({ error: say, warn: say, info: () => undefined, debug: () => undefined, verbose: () => undefined }, DiagLogLevel.WARN);
  // OTEL_RESOURCE_ATTRIBUTES adds to the resource; the service name is ours unless OTEL_SERVICE_NAME says.
  const resource = Resource.default().merge(envDetectorSync.detect()).merge(new Resource({ [ATTR_SERVICE_NAME]: opts.serviceName }));
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  return {
    tracer: trace.getTracer('hosted-agents'),
    resource,
    spanProcessor,
    shutdown: () => provider.shutdown(),
  };
}
