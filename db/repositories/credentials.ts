import type { Knex } from 'knex';
import type { Db } from '../connect';
import type { ConversationRow } from './conversations';

/**
 * Who a value belongs to: an agent (scope `fixed`), a conversation (scope `conversation`), or an
 * end user of the workspace (scope `conversation`, serving every conversation of that end user).
 */
export interface CredentialOwner {
  kind: 'agent' | 'conversation' | 'end_user';
  id: string;
}

export const agentOwner = (id: string): CredentialOwner => ({ kind: 'agent', id });
export const conversationOwner = (id: string): CredentialOwner => ({ kind: 'conversation', id });
/** A conversation as far as its values go: its id, its end user, and whether it acts as them. */
export type ConversationRef = Pick<ConversationRow, 'id' | 'workspace_id' | 'end_user_id' | 'channel' | 'visitor_verified'>;

/**
 * The end user a conversation acts as (whose values serve it), or null. One started by the API
 * (`agent.start({ endUser })`) acts as its end user: the API key vouches for it. A visitor's
 * (public or test) does only when the visitor proved that id with a signed token: a typed id is
 * a routing hint, never a permission.
 */
export function actingEndUser(c: Pick<ConversationRef, 'end_user_id' | 'channel' | 'visitor_verified'>): string | null {
  if (c.end_user_id === null) return null;
  return c.channel === null || c.visitor_verified ? c.end_user_id : null;
}

/** A conversation's end user as the API shows it (`AgentConversation.endUser`), or undefined for none. */
export function endUserView(
  c: Pick<ConversationRow, 'end_user_id' | 'end_user_name' | 'end_user_email' | 'channel' | 'visitor_verified'>,
): { id: string; name?: string; email?: string; verified: boolean } | undefined {
  if (c.end_user_id === null) return undefined;
  return {
    id: c.end_user_id,
    ...(c.end_user_name ? { name: c.end_user_name } : {}),
    ...(c.end_user_email ? { email: c.end_user_email } : {}),
    verified: actingEndUser(c) !== null,
  };
}

/** The owners whose values a conversation sees besides its agent's: the end user it acts as, then its own (which win). */
export function conversationOwners(c: ConversationRef): CredentialOwner[] {
  const endUser = actingEndUser(c);
  return [...(endUser !== null ? [endUserOwner(c.workspace_id, endUser)] : []), conversationOwner(c.id)];
}

/** An end user's values: `owner_id` is `<workspaceId>:<endUserId>` (end user ids are the product's, unique per workspace). */
export const endUserOwner = (workspaceId: string, endUserId: string): CredentialOwner => ({ kind: 'end_user', id: `${workspaceId}:${endUserId}` });

interface SecretValueRow {
  owner_kind: CredentialOwner['kind'];
  owner_id: string;
  name: string;
  /** Sealed bytes (domain/secret-box.ts). */
  value: Buffer;
  updated_at: Date;
}

interface ConnectionValueRow {
  owner_kind: CredentialOwner['kind'];
  owner_id: string;
  provider: string;
  /** Sealed JSON `{ accessToken, refreshToken?, expiresAt? }`. */
  value: Buffer;
  account_label: string | null;
  expires_at: Date | null;
  /** A refresh token is sealed in `value`. */
  refreshable: boolean;
  /** Why the value stopped working (a refused refresh); null while it works. */
  error: string | null;
  updated_at: Date;
}

/** A connection row without its sealed value: what statuses and readiness read. */
export type ConnectionMeta = Omit<ConnectionValueRow, 'value'>;

/** What is stored for some owners, without any value: names and connection metadata. */
export interface Supplied {
  secrets: Array<{ owner_kind: CredentialOwner['kind']; owner_id: string; name: string }>;
  connections: ConnectionMeta[];
}

const ownerColumns = (workspaceId: string, owner: CredentialOwner) => ({
  workspace_id: workspaceId,
  owner_kind: owner.kind,
  owner_id: owner.id,
  agent_id: owner.kind === 'agent' ? owner.id : null,
  conversation_id: owner.kind === 'conversation' ? owner.id : null,
  end_user_id: owner.kind === 'end_user' ? owner.id.slice(workspaceId.length + 1) : null,
});

/** A connection value to store: sealed tokens and what stays readable. */
export interface ConnectionWrite {
  provider: string;
  value: Buffer;
  accountLabel: string | null;
  expiresAt: Date | null;
  refreshable: boolean;
}

/** `(owner_kind, owner_id) in (…)` for a list of owners: one `owner_id in (…)` per kind. */
function whereOwners(q: Knex.QueryBuilder, owners: CredentialOwner[]): Knex.QueryBuilder {
  return q.where((w) => {
    for (const kind of ['agent', 'conversation', 'end_user'] as const) {
      const ids = owners.filter((o) => o.kind === kind).map((o) => o.id);
      if (ids.length > 0) w.orWhere((k) => k.where('owner_kind', kind).whereIn('owner_id', ids));
    }
  });
}

/**
 * Encrypted secret and connection values, by owner. The repository stores and returns sealed
 * bytes only: the credentials service seals them, the worker's credential source opens them.
 */
export class CredentialsRepository {
  constructor(private readonly db: Db) {}

  /** Inserts or replaces values by name/provider; other values of the owner stay. */
  async put(
    input: {
      workspaceId: string;
      owner: CredentialOwner;
      secrets: Array<{ name: string; value: Buffer }>;
      connections: ConnectionWrite[];
    },
    trx: Knex.Transaction,
  ): Promise<void> {
    const base = ownerColumns(input.workspaceId, input.owner);
    if (input.secrets.length > 0) {
      await trx('secret_values')
        .insert(input.secrets.map((s) => ({ ...base, name: s.name, value: s.value })))
        .onConflict(['owner_kind', 'owner_id', 'name'])
        .merge({ value: trx.raw('excluded.value'), updated_at: trx.fn.now() });
    }
    if (input.connections.length > 0) {
      await trx('connection_values')
        .insert(
          input.connections.map((c) => ({
            ...base,
            provider: c.provider,
            value: c.value,
            account_label: c.accountLabel,
            expires_at: c.expiresAt,
            refreshable: c.refreshable,
            error: null,
          })),
        )
        .onConflict(['owner_kind', 'owner_id', 'provider'])
        .merge({
          value: trx.raw('excluded.value'),
          account_label: trx.raw('excluded.account_label'),
          expires_at: trx.raw('excluded.expires_at'),
          refreshable: trx.raw('excluded.refreshable'),
          error: null,
          updated_at: trx.fn.now(),
        });
    }
  }

  /** Removes one connection value; the removed row (to revoke its tokens), or undefined when there was none. */
  async deleteConnection({ owner, provider }: { owner: CredentialOwner; provider: string }, trx?: Knex.Transaction): Promise<ConnectionValueRow | undefined> {
    const [row] = await (trx ?? this.db)('connection_values').where({ owner_kind: owner.kind, owner_id: owner.id, provider }).delete().returning('*');
    return row as ConnectionValueRow | undefined;
  }

  /** One connection row with its sealed value, locked until `trx` ends (so one refresh runs at a time). */
  async lockConnection({ owner, provider }: { owner: CredentialOwner; provider: string }, trx: Knex.Transaction): Promise<ConnectionValueRow | undefined> {
    const row = await trx('connection_values').where({ owner_kind: owner.kind, owner_id: owner.id, provider }).forUpdate().first();
    return row as ConnectionValueRow | undefined;
  }

  /** Replaces a stored connection's tokens after a refresh (the account label stays). */
  async refreshed(
    { owner, provider, value, expiresAt, refreshable }: { owner: CredentialOwner; provider: string; value: Buffer; expiresAt: Date | null; refreshable: boolean },
    trx: Knex.Transaction,
  ): Promise<void> {
    await trx('connection_values')
      .where({ owner_kind: owner.kind, owner_id: owner.id, provider })
      .update({ value, expires_at: expiresAt, refreshable, error: null, updated_at: trx.fn.now() });
  }

  /** Marks a connection as no longer working (e.g. the provider refused its refresh token). */
  async failed({ owner, provider, error }: { owner: CredentialOwner; provider: string; error: string }, trx: Knex.Transaction): Promise<void> {
    await trx('connection_values').where({ owner_kind: owner.kind, owner_id: owner.id, provider }).update({ error, updated_at: trx.fn.now() });
  }

  /** Names and connection metadata stored for the owners (no values). */
  async supplied({ owners }: { owners: CredentialOwner[] }, trx?: Knex.Transaction): Promise<Supplied> {
    if (owners.length === 0) return { secrets: [], connections: [] };
    const q = trx ?? this.db;
    const [secrets, connections] = await Promise.all([
      whereOwners(q('secret_values').select('owner_kind', 'owner_id', 'name'), owners).orderBy('name'),
      whereOwners(
        q('connection_values').select('owner_kind', 'owner_id', 'provider', 'account_label', 'expires_at', 'refreshable', 'error', 'updated_at'),
        owners,
      ).orderBy('provider'),
    ]);
    return { secrets: secrets as Supplied['secrets'], connections: connections as ConnectionMeta[] };
  }

  /** Every sealed value of the owners, for the credential source. */
  async values(
    { workspaceId, owners }: { workspaceId: string; owners: CredentialOwner[] },
    trx?: Knex.Transaction,
  ): Promise<{ secrets: SecretValueRow[]; connections: ConnectionValueRow[] }> {
    if (owners.length === 0) return { secrets: [], connections: [] };
    const q = trx ?? this.db;
    const [secrets, connections] = await Promise.all([
      whereOwners(q('secret_values').where({ workspace_id: workspaceId }).select('owner_kind', 'owner_id', 'name', 'value', 'updated_at'), owners),
      whereOwners(q('connection_values').where({ workspace_id: workspaceId }).select('*'), owners),
    ]);
    return { secrets: secrets as SecretValueRow[], connections: connections as ConnectionValueRow[] };
  }
}
