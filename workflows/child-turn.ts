import {
  CancellationScope,
  type ChildWorkflowHandle,
  type ChildWorkflowOptions,
  isCancellation,
  ParentClosePolicy,
  patched,
  proxyActivities,
  startChild,
} from '@temporalio/workflow';
import type { UnstartedTurnActivities } from '../activities/unstarted-turn';
import { type TurnInput, type TurnLimits, turnWorkflowId } from '../domain/runs/turn';
import { AgentIdKey, ConversationIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';
import { summaries } from './summaries';
import type { turnWorkflow } from './turn';

/**
 * Runs a trigger run's turn as the ordinary `turnWorkflow`, a child workflow with id
 * `turn-<turnId>` (so it streams, debits and resumes like a turn asked through the API), and
 * waits for it: a run lasts until its turn ends.
 */
export async function runChildTurn(input: {
  turnId: string;
  limits: TurnLimits;
  turnsQueue: string;
  workspaceId: string;
  agentId: string;
  conversationId: string;
  /** What started the run: the child's summary in the Temporal UI. */
  origin: 'trigger' | 'webhook';
}): Promise<void> {
  const args: TurnInput = { turnId: input.turnId, limits: input.limits };
  const child = await startTurnChild(input.turnId, {
    workflowId: turnWorkflowId(input.turnId),
    staticSummary: summaries.childTurn(input.origin),
    taskQueue: input.turnsQueue,
    args: [args],
    // The turn ends itself with a terminal event on every path; a cancelled run must not cut it short.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: WorkspaceIdKey, value: input.workspaceId },
      { key: AgentIdKey, value: input.agentId },
      { key: ConversationIdKey, value: input.conversationId },
    ],
  });
  await child.result();
}

/**
 * Starts the ordinary `turnWorkflow` of an opened turn as a child (what `executeChild` does before
 * it waits). A parent cancelled in the same workflow task that opened the turn has the start
 * dropped by Temporal, and nothing would ever end the turn: it would stay `running`, holding its
 * reserve and its conversation. So when the start is cancelled, the turn is ended as cancelled
 * (if no attempt claimed it; it consumed nothing). Runs recorded before this replay as they were.
 */
export async function startTurnChild(
  turnId: string,
  options: ChildWorkflowOptions & { args: Parameters<typeof turnWorkflow> },
): Promise<ChildWorkflowHandle<typeof turnWorkflow>> {
  try {
    return await startChild<typeof turnWorkflow>('turnWorkflow', options);
  } catch (err) {
    if (isCancellation(err) && patched('end-unstarted-child-turn')) {
      const { endUnstartedTurn } = proxyActivities<UnstartedTurnActivities>({
        startToCloseTimeout: '30 seconds',
        retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
        summary: summaries.endUnstartedTurn,
      });
      await CancellationScope.nonCancellable(() => endUnstartedTurn({ turnId }));
    }
    throw err;
  }
}
