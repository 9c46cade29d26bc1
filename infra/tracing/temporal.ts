import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import type { Tracing } from './otel';

/** Starting (signalling, querying) a workflow is a span whose context travels in the Temporal headers. */
export function tracingClientInterceptors(tracing: Tracing): ClientInterceptors {
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer })] };
}

/** What a traced worker adds: a span per activity (child of the workflow's) and the sink workflow spans leave the sandbox by. */
export interface WorkerTracing {
  activity: ActivityInterceptorsFactory[];
  sinks: NonNullable<WorkerOptions['sinks']>;
}

export function workerTracing(tracing: Tracing): WorkerTracing {
  return {
    activity: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracing.tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
