import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { TriggerRunActivities } from '../activities/trigger-run';
import type { TriggerRunInput, TriggerRunResult } from '../domain/runs/trigger-run';
import { runChildTurn } from './child-turn';
import { summaries } from './summaries';


/**
 * One run of a schedule or interval trigger, started by the agent's Temporal Schedule: starts a
 * conversation and asks the trigger's message, then runs the ordinary turn as a child workflow
 * and waits for it, so the Schedule's overlap policy (SKIP) sees a run as going until its turn ends.
 */
export async function triggerRunWorkflow(input: TriggerRunInput): Promise<TriggerRunResult> {
  // The run's workflow id (the Schedule's id plus the scheduled time) keys its conversation.
  const { startTriggerRun } = proxyActivities<TriggerRunActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
    summary: summaries.startTriggerRun(input.trigger.kind, input.trigger.index),
  });
  const started = await startTriggerRun({ ...input, run: workflowInfo().workflowId });
  if ('skipped' in started) return started;
  await runChildTurn({ ...started, limits: input.limits, turnsQueue: input.turnsQueue, workspaceId: input.workspaceId, agentId: input.agentId, origin: 'trigger' });
  return started;
}
