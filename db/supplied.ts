import type { Knex } from 'knex';
import { type StoredConnection, type SuppliedView, levelOfOwner } from '../domain/credentials';
import type { Repositories } from './repositories';
import { agentOwner, type ConnectionMeta, conversationOwners, type ConversationRef, type CredentialOwner, type Supplied } from './repositories/credentials';

/**
 * What an agent and its conversations have stored, names and connection metadata only: the input
 * of readiness (`missingRequirements`) and of connection statuses. Under `db/` because both the
 * API (services/) and the turns the worker opens (turns/) read it.
 */

export function storedConnection(row: ConnectionMeta): StoredConnection {
  return {
    level: levelOfOwner(row.owner_kind),
    provider: row.provider,
    ...(row.account_label !== null ? { accountLabel: row.account_label } : {}),
    ...(row.expires_at !== null ? { expiresAt: row.expires_at } : {}),
    ...(row.refreshable ? { refreshable: true } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
  };
}

/**
 * What is stored for a conversation and its agent, from the rows of all owners: the agent's, the
 * conversation's end user's and the conversation's own — the own value first, so it wins a name
 * clash with the end user's.
 */
export function suppliedView(rows: Supplied, conversation?: ConversationRef): SuppliedView {
  const rank = new Map<string, number>([['agent', 0]]);
  if (conversation) conversationOwners(conversation).forEach((o, i, all) => rank.set(`${o.kind}:${o.id}`, all.length - i));
  const rankOf = (r: { owner_kind: string; owner_id: string }) => (r.owner_kind === 'agent' ? 0 : rank.get(`${r.owner_kind}:${r.owner_id}`));
  const mine = <T extends { owner_kind: CredentialOwner['kind']; owner_id: string }>(list: T[]) =>
    list.filter((r) => rankOf(r) !== undefined).sort((a, b) => (rankOf(a) ?? 0) - (rankOf(b) ?? 0));
  return {
    secrets: mine(rows.secrets).map((r) => ({ level: levelOfOwner(r.owner_kind), name: r.name })),
    connections: mine(rows.connections).map(storedConnection),
  };
}

/**
 * Names and connection metadata of an agent and some of its conversations (with their end users),
 * in one read: the input of `missingRequirements` for each conversation (`suppliedView(rows, conversation)`).
 */
export function readSupplied(repos: Repositories, agentId: string, conversations: ConversationRef[], trx?: Knex.Transaction): Promise<Supplied> {
  return repos.credentials.supplied({ owners: [agentOwner(agentId), ...conversations.flatMap(conversationOwners)] }, trx);
}
