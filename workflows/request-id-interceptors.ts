import {
  type ActivityInput,
  defaultPayloadConverter,
  type LocalActivityInput,
  type Next,
  type StartChildWorkflowExecutionInput,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
  workflowInfo,
} from '@temporalio/workflow';
import { REQUEST_ID_KEY } from '../domain/request-id';

/**
 * The API request id of a workflow, from its memo (set by the API when a request starts it, or by
 * the parent for a child turn): read from `workflowInfo()` at any time, so even the SDK's own
 * "Workflow started" line carries it. Absent for runs no request started (schedules).
 */
function requestId(): string | undefined {
  const value = workflowInfo().memo?.[REQUEST_ID_KEY];
  return typeof value === 'string' ? value : undefined;
}

const withHeader = <T extends ActivityInput | LocalActivityInput>(input: T, id: string | undefined): T =>
  id === undefined ? input : { ...input, headers: { ...input.headers, [REQUEST_ID_KEY]: defaultPayloadConverter.toPayload(id) } };

/**
 * Carries the request id on: into the log attributes of every workflow log line, the header of
 * every activity (workers/request-id-interceptor.ts reads it) and the memo of child workflows (a
 * project's delegated turn, a trigger run's turn). Deterministic: it only reads the memo.
 */
class RequestIdOutbound implements WorkflowOutboundCallsInterceptor {
  getLogAttributes(input: Record<string, unknown>, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
    const id = requestId();
    return next(id === undefined ? input : { ...input, [REQUEST_ID_KEY]: id });
  }

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return next(withHeader(input, requestId()));
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return next(withHeader(input, requestId()));
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    const id = requestId();
    if (id === undefined) return next(input);
    return next({ ...input, options: { ...input.options, memo: { ...input.options.memo, [REQUEST_ID_KEY]: id } } });
  }
}

/** Registered in every workflow bundle (workers/worker.ts), traced or not. */
export const interceptors = (): WorkflowInterceptors => ({ outbound: [new RequestIdOutbound()] });
