import { executeChild, ParentClosePolicy, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { TriggerRunActivities } from '../activities/trigger-run';
import type { TriggerRunInput, TriggerRunResult } from '../domain/trigger-runs';
import { type TurnInput, turnWorkflowId } from '../domain/turn-run';
import { AgentIdKey, ConversationIdKey, WorkspaceIdKey } from './search-attributes';
import type { turnWorkflow } from './turn';

const { startTriggerRun } = proxyActivities<TriggerRunActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
});

/**
 * One run of a schedule or interval trigger, started by the agent's Temporal Schedule: starts a
 * conversation and asks the trigger's message, then runs the ordinary turn as a child workflow
 * (id `turn-<turnId>`, so it streams, debits and resumes like a turn asked through the API) and
 * waits for it, so the Schedule's overlap policy (SKIP) sees a run as going until its turn ends.
 */
export async function triggerRunWorkflow(input: TriggerRunInput): Promise<TriggerRunResult> {
  // The run's workflow id (the Schedule's id plus the scheduled time) keys its conversation.
  const started = await startTriggerRun({ ...input, run: workflowInfo().workflowId });
  if ('skipped' in started) return started;
  const args: TurnInput = { turnId: started.turnId, limits: input.limits };
  await executeChild<typeof turnWorkflow>('turnWorkflow', {
    workflowId: turnWorkflowId(started.turnId),
    taskQueue: input.turnsQueue,
    args: [args],
    // The turn ends itself with a terminal event on every path; a cancelled run must not cut it short.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: WorkspaceIdKey, value: input.workspaceId },
      { key: AgentIdKey, value: input.agentId },
      { key: ConversationIdKey, value: started.conversationId },
    ],
  });
  return started;
}
