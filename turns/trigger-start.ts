import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import { notReady, openTurn, versionInForce } from './open';
import { resolveParameters } from '../domain/conversation';
import type { TriggerRunSkip } from '../domain/runs/trigger-run';

/** What starts a run: the trigger (kind and index in the latest version's `triggers`) and the run's unique key. */
export interface TriggerConversationInput {
  workspaceId: string;
  agentId: string;
  trigger: { kind: 'schedule' | 'interval' | 'webhook'; index: number };
  /** The user message the run asks. */
  message: string;
  /** Unique per run (stored on the conversation): a repeat finds the run it started. */
  run: string;
  /** Credits the turn reserves while it runs (`TURN_RESERVE_CREDITS`). */
  reserve: number;
  /** The most turns the workspace may run at once (`WORKSPACE_RUNNING_TURNS_MAX`). */
  maxRunningTurns: number;
}

export type TriggerConversationResult =
  | { turnId: string; conversationId: string; repeated: boolean }
  | TriggerRunSkip;

/**
 * Starts a trigger run's conversation and its turn, in the caller's transaction, as `ask` does
 * through the API: a conversation pinned to the version in force (production for a deployed
 * freelancer, the latest otherwise), marked with its trigger; then the user message, a running
 * turn and its `start` event. Idempotent per `run`: a repeat returns the turn it already started.
 * A deleted agent, a trigger that no longer stands at that index, an agent that requires what is
 * not supplied, or a turn the admission refuses (no credits, the workspace's running-turns limit)
 * is a skip, not a failure: nothing is written.
 */
export async function startTriggerConversation(repos: Repositories, trx: Knex.Transaction, input: TriggerConversationInput): Promise<TriggerConversationResult> {
  const { run } = input;
  const again = await repos.conversations.ofTriggerRun({ run }, trx);
  const already = again && (await repos.turns.firstOf({ conversationId: again.id }, trx));
  if (again && already) return { turnId: already, conversationId: again.id, repeated: true };
  const inForce = await versionInForce(repos, input, trx);
  if (!inForce) return { skipped: 'agent_gone' };
  const { version, current, config } = inForce;
  // The trigger is the latest version's (Schedules and webhooks follow the latest version); a run
  // fired between a publish and its reconcile checks that it still stands there.
  const latest = version === current ? config : await repos.agents.versionConfig({ agentId: input.agentId, number: current }, trx);
  if (latest?.triggers[input.trigger.index]?.kind !== input.trigger.kind) return { skipped: 'trigger_changed' };
  const missing = await notReady(repos, { agentId: input.agentId, config }, trx);
  if (missing) return { skipped: 'conversation_not_ready', detail: missing };
  const params = resolveParameters(config.parameters, {});
  if (!params.ok) return { skipped: 'conversation_not_ready', detail: `parameter ${params.name}: ${params.problem}` };
  const create = () =>
    repos.conversations.create({ workspaceId: input.workspaceId, agentId: input.agentId, version, parameters: params.values, trigger: { ...input.trigger, run } }, trx);
  const opened = await openTurn(
    repos,
    { workspaceId: input.workspaceId, agentId: input.agentId, conversation: again ?? create, reserve: input.reserve, maxRunningTurns: input.maxRunningTurns, message: input.message },
    trx,
  );
  if ('refused' in opened) {
    // A run's conversation is its own: a turn of it still running is this run's, already started.
    if (opened.refused === 'turn_in_progress') throw new Error(`trigger run ${run}: ${opened.message}`);
    return { skipped: opened.refused, detail: opened.message };
  }
  return { turnId: opened.turnId, conversationId: opened.conversation.id, repeated: false };
}
