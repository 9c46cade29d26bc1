/**
 * What activities see of tracing: child spans around the calls worth seeing in a trace (the model
 * call, each tool call) and attributes on the current span. No OpenTelemetry import here, so the
 * activities load none when tracing is off (docs/operations.md: Tracing); `noSpans` is what they get then.
 */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** The span `fn` runs in, for what is known only at its end (tokens used, a tool's outcome). */
interface SpanHandle {
  annotate(attributes: SpanAttributes): void;
}

export interface Spans {
  /** Runs `fn` in a child span of the current one; a throw marks the span as failed and goes on. */
  run<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** Adds attributes to the current span (none: nothing happens). */
  annotate(attributes: SpanAttributes): void;
}

const noSpan: SpanHandle = { annotate: () => undefined };

/** Tracing off: the function runs, nothing is recorded. */
export const noSpans: Spans = {
  run: (_name, _attributes, fn) => fn(noSpan),
  annotate: () => undefined,
};

/** The span attribute (and log field) that carries the API request id of a turn. */
export const REQUEST_ID_ATTRIBUTE = 'hosted_agents.request_id';
