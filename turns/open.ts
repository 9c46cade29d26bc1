import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import type { AttachmentRef, ConversationRow } from '../db/repositories/conversations';
import { readSupplied, suppliedView } from '../db/supplied';
import type { AgentConfig } from '../domain/agent';
import { titleFrom } from '../domain/conversation';
import { missingRequirements } from '../domain/credentials';
import { admitTurn, type TurnAdmission, type TurnAdmissionInput } from './admission';

/**
 * Opening a turn: what every start shares — the API's ask, triggers, webhooks and a manager's
 * delegations. turns/ belongs to neither services/ (the API) nor activities/ (the worker), so
 * both use it and neither imports the other (eslint.config.mjs). Each function takes the
 * caller's transaction.
 */

/**
 * The version a run pins its conversation to: the production version of a deployed freelancer
 * (what its users get), the latest otherwise. Undefined when the agent is gone.
 */
export async function versionInForce(
  repos: Repositories,
  { workspaceId, agentId }: { workspaceId: string; agentId: string },
  trx: Knex.Transaction,
): Promise<{ version: number; current: number; config: AgentConfig } | undefined> {
  const agent = await trx('agents')
    .where({ id: agentId, workspace_id: workspaceId })
    .first<{ role: string; current_version: number; prod_version: number | null } | undefined>('role', 'current_version', 'prod_version');
  if (!agent) return undefined;
  const version = agent.role === 'freelancer' && agent.prod_version ? agent.prod_version : agent.current_version;
  const config = await repos.agents.versionConfig({ agentId, number: version }, trx);
  return config ? { version, current: agent.current_version, config } : undefined;
}

/**
 * Why a conversation is not ready, or undefined: what the version requires must be supplied on
 * the agent, the conversation's end user or the conversation (a new one has nothing of its own).
 */
export async function notReady(
  repos: Repositories,
  { agentId, config, conversation }: { agentId: string; config: AgentConfig; conversation?: ConversationRow },
  trx: Knex.Transaction,
): Promise<string | undefined> {
  // Most agents require nothing: then there is nothing stored to read.
  if (!config.secrets.some((x) => x.required) && !config.connections.some((x) => x.required)) return undefined;
  const stored = await readSupplied(repos, agentId, conversation ? [conversation] : [], trx);
  const requires = missingRequirements(config, suppliedView(stored, conversation));
  return requires.length > 0 ? `missing: ${requires.map((r) => `${r.kind} ${r.name}`).join(', ')}` : undefined;
}

/**
 * Admits the turn (`admitTurn`: the checks every start shares), then writes the user message (with
 * `attachments`, stored once the turn has its id), the title of an untitled conversation and the
 * turn's `start` event (one statement). A refusal writes nothing, not even the conversation when `conversation`
 * creates it.
 */
export async function openTurn(
  repos: Repositories,
  input: TurnAdmissionInput & { message: string; attachments?: (turnId: string) => Promise<AttachmentRef[]> },
  trx: Knex.Transaction,
): Promise<TurnAdmission> {
  const admitted = await admitTurn(repos, input, trx);
  if ('refused' in admitted) return admitted;
  const { turnId, conversation } = admitted;
  const attachments = input.attachments ? await input.attachments(turnId) : [];
  const title = titleFrom(input.message);
  await repos.turns.opened({ turnId, conversationId: conversation.id, message: input.message, attachments, title: title && !conversation.title ? title : undefined }, trx);
  return admitted;
}
