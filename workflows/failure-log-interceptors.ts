import {
  ApplicationFailure,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/**
 * The SDK logs every failed run as a warning ("Workflow failed"), and the error it attaches reaches
 * the worker's logger as a bare copy (message and stack: type and category are lost on the way out
 * of the sandbox). So the failure that ends a run is remembered here and added to that line's
 * attributes — `failureType`, and `failureCategory: 'BENIGN'` for an expected end such as a refused
 * promotion — which infra/temporal-runtime.ts logs at debug. Deterministic: it only reads the failure.
 */
export const interceptors = (): WorkflowInterceptors => {
  let ended: { failureType?: string; failureCategory?: string } | undefined;
  const inbound: WorkflowInboundCallsInterceptor = {
    async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
      try {
        return await next(input);
      } catch (err) {
        if (err instanceof ApplicationFailure) ended = { ...(err.type ? { failureType: err.type } : {}), ...(err.category ? { failureCategory: err.category } : {}) };
        throw err;
      }
    },
  };
  const outbound: WorkflowOutboundCallsInterceptor = {
    getLogAttributes(input: Record<string, unknown>, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
      return next(ended === undefined ? input : { ...input, ...ended });
    },
  };
  return { inbound: [inbound], outbound: [outbound] };
};
