import type { Db } from '../connect';
import { sealContext } from '../../domain/secret-box';
import { acmeAccountKeyContext, tlsKeyContext } from '../../domain/custom-domains';
import { publicTokenContext } from '../../domain/public-token';
import { visitorSecretContext } from '../../domain/visitor-identity';
import { webhookSealContexts } from '../../domain/webhooks';
import { oidcSignInSealContext } from './oidc-sign-ins';

/**
 * Every column that holds a value sealed under SECRETS_KEY (domain/secret-box.ts), with the
 * additional authenticated data each row's value is bound to: what `hosted-agents secrets rekey`
 * walks. A new sealed column must be listed here, or rekey leaves it under the old key (the rekey
 * test seals one value of every kind and fails on any it does not move).
 */
export interface SealedColumn {
  /** `table.column`, for progress lines. */
  name: string;
  table: string;
  column: string;
  /** The primary key, in order: batches walk it (keyset pagination), so a rerun resumes cleanly. */
  key: readonly string[];
  /** The extra columns the context needs. */
  reads: readonly string[];
  context(row: Record<string, string>): string;
}

const ownerColumns = ['owner_kind', 'owner_id'] as const;
type OwnerKind = Parameters<typeof sealContext>[1];

export const sealedColumns: readonly SealedColumn[] = [
  {
    name: 'secret_values.value', table: 'secret_values', column: 'value', key: [...ownerColumns, 'name'], reads: [],
    context: (r) => sealContext('secret', r.owner_kind as OwnerKind, r.owner_id ?? '', r.name ?? ''),
  },
  {
    name: 'connection_values.value', table: 'connection_values', column: 'value', key: [...ownerColumns, 'provider'], reads: [],
    context: (r) => sealContext('connection', r.owner_kind as OwnerKind, r.owner_id ?? '', r.provider ?? ''),
  },
  {
    name: 'oauth_states.code_verifier', table: 'oauth_states', column: 'code_verifier', key: ['state_hash'], reads: ownerColumns,
    context: (r) => sealContext('oauth-verifier', r.owner_kind as OwnerKind, r.owner_id ?? '', r.state_hash ?? ''),
  },
  {
    name: 'oidc_sign_ins.secrets', table: 'oidc_sign_ins', column: 'secrets', key: ['state_hash'], reads: [],
    context: (r) => oidcSignInSealContext(r.state_hash ?? ''),
  },
  {
    name: 'agents.public_token_sealed', table: 'agents', column: 'public_token_sealed', key: ['id'], reads: [],
    context: (r) => publicTokenContext(r.id ?? ''),
  },
  {
    name: 'webhooks.token_sealed', table: 'webhooks', column: 'token_sealed', key: ['id'], reads: [],
    context: (r) => webhookSealContexts.token(r.id ?? ''),
  },
  {
    name: 'custom_domains.key_sealed', table: 'custom_domains', column: 'key_sealed', key: ['domain'], reads: ['id'],
    context: (r) => tlsKeyContext(r.id ?? '', r.domain ?? ''),
  },
  {
    name: 'acme_accounts.key_sealed', table: 'acme_accounts', column: 'key_sealed', key: ['directory_url'], reads: [],
    context: (r) => acmeAccountKeyContext(r.directory_url ?? ''),
  },
  {
    name: 'webhooks.signing_secret_sealed', table: 'webhooks', column: 'signing_secret_sealed', key: ['id'], reads: [],
    context: (r) => webhookSealContexts.signingSecret(r.id ?? ''),
  },
  {
    name: 'visitor_identities.secret_sealed', table: 'visitor_identities', column: 'secret_sealed', key: ['agent_id'], reads: [],
    context: (r) => visitorSecretContext(r.agent_id ?? ''),
  },
  {
    name: 'visitor_identities.previous_secret_sealed', table: 'visitor_identities', column: 'previous_secret_sealed', key: ['agent_id'], reads: [],
    context: (r) => visitorSecretContext(r.agent_id ?? ''),
  },
];

export interface SealedRow {
  /** The primary key's values, in `SealedColumn.key` order. */
  key: string[];
  /** Key and context columns by name. */
  fields: Record<string, string>;
  sealed: Buffer;
}

/** The 4-byte key id every sealed value carries after its version byte. */
const keyIdSql = (column: string) => `substring("${column}" from 2 for 4)`;

export class SealedValuesRepository {
  constructor(private readonly db: Db) {}

  /** How many values of a column are sealed under the key `keyId` (hex), and how many under others. */
  async count(c: SealedColumn, keyId: string): Promise<{ current: number; other: number }> {
    const row = (await this.db(c.table)
      .whereNotNull(c.column)
      .select(
        this.db.raw(`count(*) filter (where ${keyIdSql(c.column)} = decode(?, 'hex'))::int as current`, [keyId]),
        this.db.raw(`count(*) filter (where ${keyIdSql(c.column)} <> decode(?, 'hex'))::int as other`, [keyId]),
      )
      .first()) as { current: number; other: number };
    return row;
  }

  /** The next `limit` values after `after` (primary key order) not sealed under `keyId`. */
  async nextBatch(c: SealedColumn, keyId: string, after: string[] | undefined, limit: number): Promise<SealedRow[]> {
    const keyList = c.key.map((k) => `"${k}"`).join(', ');
    const q = this.db(c.table)
      .select([...new Set([...c.key, ...c.reads, c.column])])
      .whereNotNull(c.column)
      .whereRaw(`${keyIdSql(c.column)} <> decode(?, 'hex')`, [keyId])
      .orderBy(c.key.map((column) => ({ column })))
      .limit(limit);
    if (after) q.whereRaw(`(${keyList}) > (${c.key.map(() => '?').join(', ')})`, after);
    const rows = (await q) as Array<Record<string, string | Buffer>>;
    return rows.map((r) => {
      const fields = Object.fromEntries(Object.entries(r).filter(([k]) => k !== c.column).map(([k, v]) => [k, String(v)]));
      return { key: c.key.map((k) => fields[k] ?? ''), fields, sealed: r[c.column] as Buffer };
    });
  }

  /**
   * Replaces one value, only if it is still the one read (a value rewritten meanwhile — a new
   * secret, a refreshed token — is already under the current key). True when replaced.
   */
  async replace(c: SealedColumn, row: SealedRow, resealed: Buffer): Promise<boolean> {
    const where = Object.fromEntries(c.key.map((k, i) => [k, row.key[i]]));
    const n = await this.db(c.table).where(where).where(c.column, row.sealed).update({ [c.column]: resealed });
    return n === 1;
  }
}
