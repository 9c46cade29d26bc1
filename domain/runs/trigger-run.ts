/**
 * What the API, the trigger-run workflow and its activity share: the run's input and result,
 * the ids of Schedules and runs. Pure declarations, so the workflow bundle may import them.
 */
import type { TurnLimits } from './turn';

/** The triggers that run on a Temporal Schedule. */
type ScheduledTriggerKind = 'schedule' | 'interval';

/** The input the Schedule's action gives each run (fixed when the Schedule is reconciled). */
export interface TriggerRunInput {
  workspaceId: string;
  agentId: string;
  trigger: { kind: ScheduledTriggerKind; index: number };
  message: string;
  limits: TurnLimits;
  /** The queue the run's turn (a child workflow) runs on. */
  turnsQueue: string;
}

/** What one run did: started a turn, or skipped with the reason (no credits, agent gone…). */
export type TriggerRunResult = { turnId: string; conversationId: string } | TriggerRunSkip;

/** Why a run started nothing (`running_turns_limit`: the workspace ran WORKSPACE_RUNNING_TURNS_MAX turns). */
export interface TriggerRunSkip {
  skipped: 'insufficient_credits' | 'running_turns_limit' | 'agent_gone' | 'conversation_not_ready' | 'trigger_changed';
  detail?: string;
}

/** The Schedule of the agent's trigger at `index` of its `triggers` (at most 100 triggers). */
export const triggerScheduleId = (agentId: string, index: number) => `trigger-${agentId}-${index}`;
/** The workflow id of the Schedule's runs; Temporal appends the scheduled time to it. */
export const triggerRunWorkflowId = (agentId: string, index: number) => `trigger-run-${agentId}-${index}`;
