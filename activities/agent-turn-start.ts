import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import type { AgentConfig } from '../domain/agent';
import { titleFrom } from '../domain/conversation';
import { missingRequirements } from '../domain/credentials';
import { readSupplied, suppliedView } from '../services/credentials';
import { admitTurn, type TurnAdmission, type TurnAdmissionInput } from '../db/turn-admission';

/**
 * What the runs that start an agent's turn on their own share (a trigger run, a manager's
 * delegation): which version is in force, whether the agent is ready, and opening the turn as
 * `ask` does. Each takes the caller's transaction.
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
 * As `ask` refuses a conversation that is not ready: what the version requires must be supplied
 * on the agent (a new conversation has nothing of its own). The missing items, or undefined.
 */
export async function missingOnAgent(repos: Repositories, agentId: string, config: AgentConfig, trx: Knex.Transaction): Promise<string | undefined> {
  if (!config.secrets.some((x) => x.required) && !config.connections.some((x) => x.required)) return undefined;
  const requires = missingRequirements(config, suppliedView(await readSupplied(repos, agentId, [], trx)));
  return requires.length > 0 ? `missing: ${requires.map((r) => `${r.kind} ${r.name}`).join(', ')}` : undefined;
}

/**
 * Admits the turn (`admitTurn`: the checks every start shares), then writes the user message and
 * the turn's `start` event, as `ask` does. A refusal writes nothing, not even the conversation
 * when `conversation` creates it.
 */
export async function openTurn(repos: Repositories, input: TurnAdmissionInput & { message: string }, trx: Knex.Transaction): Promise<TurnAdmission> {
  const admitted = await admitTurn(repos, input, trx);
  if ('refused' in admitted) return admitted;
  const { turnId, conversation } = admitted;
  await repos.conversations.addUserMessage({ conversationId: conversation.id, turnId, content: input.message, attachments: [] }, trx);
  const title = titleFrom(input.message);
  if (title) await repos.conversations.setTitleIfMissing({ conversationId: conversation.id, title }, trx);
  await repos.turns.append({ turnId, events: [{ type: 'start', turnId }] }, trx);
  return admitted;
}
