import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import { resolveParameters, titleFrom } from '../domain/conversation';
import { missingRequirements } from '../domain/credentials';
import type { TriggerRunSkip } from '../domain/trigger-runs';
import { readSupplied, suppliedView } from './credentials';

/** What starts a run: the trigger (kind and index in the latest version's `triggers`) and the run's unique key. */
export interface TriggerConversationInput {
  workspaceId: string;
  agentId: string;
  trigger: { kind: 'schedule' | 'interval' | 'webhook'; index: number };
  /** The user message the run asks. */
  message: string;
  /** Unique per run (stored on the conversation): a repeat finds the run it started. */
  run: string;
}

export type TriggerConversationResult =
  | { turnId: string; conversationId: string; repeated: boolean }
  | TriggerRunSkip;

/**
 * Starts a trigger run's conversation and its turn, in the caller's transaction, as `ask` does
 * through the API: a conversation pinned to the version in force (production for a deployed
 * freelancer, the latest otherwise), marked with its trigger; then the user message, a running
 * turn and its `start` event. Idempotent per `run`: a repeat returns the turn it already started.
 * A workspace without credits, a deleted agent, a trigger that no longer stands at that index or
 * an agent that requires what is not supplied is a skip, not a failure.
 */
export async function startTriggerConversation(repos: Repositories, trx: Knex.Transaction, input: TriggerConversationInput): Promise<TriggerConversationResult> {
  const { run } = input;
  const again = await repos.conversations.ofTriggerRun({ run }, trx);
  if (again) {
    const turn = await trx('turns').where({ conversation_id: again.id }).orderBy('started_at').first('id');
    if (turn) return { turnId: turn.id as string, conversationId: again.id, repeated: true };
  }
  const agent = await trx('agents')
    .where({ id: input.agentId, workspace_id: input.workspaceId })
    .first<{ role: string; current_version: number; prod_version: number | null } | undefined>('role', 'current_version', 'prod_version');
  if (!agent) return { skipped: 'agent_gone' };
  const version = agent.role === 'freelancer' && agent.prod_version ? agent.prod_version : agent.current_version;
  const config = await repos.agents.versionConfig({ agentId: input.agentId, number: version }, trx);
  if (!config) return { skipped: 'agent_gone' };
  // The trigger is the latest version's (Schedules and webhooks follow the latest version); a run
  // fired between a publish and its reconcile checks that it still stands there.
  const latest = version === agent.current_version ? config : await repos.agents.versionConfig({ agentId: input.agentId, number: agent.current_version }, trx);
  if (latest?.triggers[input.trigger.index]?.kind !== input.trigger.kind) return { skipped: 'trigger_changed' };
  const workspace = await repos.workspaces.get({ id: input.workspaceId }, trx);
  if (!workspace || workspace.credits <= 0) return { skipped: 'insufficient_credits', detail: 'the workspace has no credits left' };
  // As `ask` refuses a conversation that is not ready: what the version requires must be
  // supplied on the agent (a new conversation has nothing of its own).
  if (config.secrets.some((x) => x.required) || config.connections.some((x) => x.required)) {
    const requires = missingRequirements(config, suppliedView(await readSupplied(repos, input.agentId, [], trx)));
    if (requires.length > 0) return { skipped: 'conversation_not_ready', detail: `missing: ${requires.map((r) => `${r.kind} ${r.name}`).join(', ')}` };
  }
  const params = resolveParameters(config.parameters, {});
  if (!params.ok) return { skipped: 'conversation_not_ready', detail: `parameter ${params.name}: ${params.problem}` };
  const conversation = again ?? (await repos.conversations.create(
    { workspaceId: input.workspaceId, agentId: input.agentId, version, parameters: params.values, trigger: { ...input.trigger, run } },
    trx,
  ));
  const turn = await repos.turns.createRunning({ conversationId: conversation.id, workspaceId: input.workspaceId }, trx);
  if (!turn) throw new Error('the new conversation already has a running turn');
  await repos.conversations.addUserMessage({ conversationId: conversation.id, turnId: turn.id, content: input.message, attachments: [] }, trx);
  const title = titleFrom(input.message);
  if (title) await repos.conversations.setTitleIfMissing({ conversationId: conversation.id, title }, trx);
  await repos.turns.append({ turnId: turn.id, events: [{ type: 'start', turnId: turn.id }] }, trx);
  return { turnId: turn.id, conversationId: conversation.id, repeated: false };
}
