import type { Knex } from 'knex';
import type { Db } from '../connect';

/** Who a value belongs to: an agent (scope `fixed`) or a conversation (scope `conversation`). */
export interface CredentialOwner {
  kind: 'agent' | 'conversation';
  id: string;
}

export const agentOwner = (id: string): CredentialOwner => ({ kind: 'agent', id });
export const conversationOwner = (id: string): CredentialOwner => ({ kind: 'conversation', id });

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
});

/** `(owner_kind, owner_id) in (…)` for a list of owners: one `owner_id in (…)` per kind. */
function whereOwners(q: Knex.QueryBuilder, owners: CredentialOwner[]): Knex.QueryBuilder {
  return q.where((w) => {
    for (const kind of ['agent', 'conversation'] as const) {
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
      connections: Array<{ provider: string; value: Buffer; accountLabel: string | null; expiresAt: Date | null }>;
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
          input.connections.map((c) => ({ ...base, provider: c.provider, value: c.value, account_label: c.accountLabel, expires_at: c.expiresAt })),
        )
        .onConflict(['owner_kind', 'owner_id', 'provider'])
        .merge({
          value: trx.raw('excluded.value'),
          account_label: trx.raw('excluded.account_label'),
          expires_at: trx.raw('excluded.expires_at'),
          updated_at: trx.fn.now(),
        });
    }
  }

  /** Removes one connection value; true when there was one. */
  async deleteConnection({ owner, provider }: { owner: CredentialOwner; provider: string }, trx?: Knex.Transaction): Promise<boolean> {
    const n = await (trx ?? this.db)('connection_values').where({ owner_kind: owner.kind, owner_id: owner.id, provider }).delete();
    return n > 0;
  }

  /** Names and connection metadata stored for the owners (no values). */
  async supplied({ owners }: { owners: CredentialOwner[] }, trx?: Knex.Transaction): Promise<Supplied> {
    if (owners.length === 0) return { secrets: [], connections: [] };
    const q = trx ?? this.db;
    const [secrets, connections] = await Promise.all([
      whereOwners(q('secret_values').select('owner_kind', 'owner_id', 'name'), owners).orderBy('name'),
      whereOwners(
        q('connection_values').select('owner_kind', 'owner_id', 'provider', 'account_label', 'expires_at', 'updated_at'),
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
