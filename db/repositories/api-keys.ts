import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { newId, randomToken } from '../../domain/ids';
import type { Role } from '../../domain/roles';
import type { ApiKeyRecord } from '../../domain/workspace';
import type { Db } from '../connect';
import { iso } from '../rows';

interface ApiKeyRow {
  id: string;
  workspace_id: string;
  hash: string;
  prefix: string;
  role: Role;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/**
 * Revoking a key notifies this channel, payload the key's id, in the revoking statement: every API
 * process evicts the key from its cache of resolved keys at once (api/key-cache.ts).
 */
export const API_KEY_REVOCATIONS_CHANNEL = 'api_key_revocations';

/** API keys look like `sk_` + 40 base36 characters (~206 bits). */
export const apiKeyPattern = /^sk_[0-9a-z]{40}$/;

/** Keys are stored only as SHA-256: they are long random strings, so a slow KDF buys nothing. */
function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    prefix: row.prefix,
    name: row.name,
    role: row.role,
    createdAt: iso(row.created_at),
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  };
}

export class ApiKeysRepository {
  constructor(private readonly db: Db) {}

  /** Mints a key; the plain key is returned here once and never stored. */
  async create(
    { workspaceId, role = 'owner', name = '' }: { workspaceId: string; role?: Role; name?: string },
    trx?: Knex.Transaction,
  ): Promise<{ record: ApiKeyRecord; apiKey: string }> {
    const apiKey = `sk_${randomToken(40)}`;
    const [row] = await (trx ?? this.db)<ApiKeyRow>('api_keys')
      .insert({ id: newId('apiKey'), workspace_id: workspaceId, hash: hashApiKey(apiKey), prefix: apiKey.slice(0, 7), role, name })
      .returning('*');
    return { record: toRecord(row!), apiKey };
  }

  async list({ workspaceId }: { workspaceId: string }, trx?: Knex.Transaction): Promise<ApiKeyRecord[]> {
    const rows = await (trx ?? this.db)<ApiKeyRow>('api_keys')
      .where({ workspace_id: workspaceId })
      .orderBy('created_at', 'asc');
    return rows.map(toRecord);
  }

  /**
   * Revokes a key; returns false when there is no such key. Revoking twice keeps the first time.
   * One statement revokes and notifies API_KEY_REVOCATIONS_CHANNEL, so the notification goes out
   * exactly when the revocation commits.
   */
  async revoke({ id, workspaceId }: { id: string; workspaceId?: string }, trx?: Knex.Transaction): Promise<boolean> {
    const result = await (trx ?? this.db).raw(
      `with revoked as (update api_keys set revoked_at = coalesce(revoked_at, now())
                         where id = ? and (?::text is null or workspace_id = ?) returning id)
       select pg_notify(?, id) from revoked`,
      [id, workspaceId ?? null, workspaceId ?? null, API_KEY_REVOCATIONS_CHANNEL],
    );
    return (result as { rows: unknown[] }).rows.length > 0;
  }

  /** The workspace a live key belongs to, the key's id and role, or undefined for an unknown or revoked key. */
  async resolve({ apiKey }: { apiKey: string }): Promise<{ workspaceId: string; keyId: string; role: Role } | undefined> {
    const row = await this.db<ApiKeyRow>('api_keys')
      .where({ hash: hashApiKey(apiKey) })
      .whereNull('revoked_at')
      .first('workspace_id', 'id', 'role');
    return row ? { workspaceId: row.workspace_id, keyId: row.id, role: row.role } : undefined;
  }

  /** Records a use of the key (the caller calls it at most about once a minute per key). */
  async touch({ id }: { id: string }): Promise<void> {
    await this.db('api_keys').where({ id }).update({ last_used_at: this.db.fn.now() });
  }
}
