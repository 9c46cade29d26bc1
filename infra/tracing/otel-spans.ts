import { type Attributes, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { SpanAttributes, Spans } from './spans';

const defined = (attributes: SpanAttributes): Attributes =>
  Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined)) as Attributes;

/** `Spans` on a real tracer: children of the active span (an activity's, in the worker). */
export function otelSpans(tracer: Tracer): Spans {
  return {
    run: (name, attributes, fn) =>
      tracer.startActiveSpan(name, { attributes: defined(attributes) }, async (span) => {
        try {
          return await fn({ annotate: (more) => span.setAttributes(defined(more)) });
        } catch (err) {
          span.recordException(err instanceof Error ? err : String(err));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      }),
    annotate: (attributes) => trace.getActiveSpan()?.setAttributes(defined(attributes)),
  };
}
