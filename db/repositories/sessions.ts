import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { newId } from '../../domain/ids';
import type { Role } from '../../domain/roles';
import type { Db } from '../connect';

/** The cookie a member's session rides on (HttpOnly; api/cookies/session-cookie.ts sets it). */
export const SESSION_COOKIE = 'ha_session';
/** Session tokens: `hs_` + 43 base64url characters (256 bits). Stored only as SHA-256. */
export const sessionTokenPattern = /^hs_[A-Za-z0-9_-]{43}$/;
/** The last-seen times are written at most this often per session (a read a request would otherwise write). */
const TOUCH_EVERY_MS = 60_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A live session, as the auth middleware sees it. */
export interface ResolvedSession {
  sessionId: string;
  memberId: string;
  accountId: string;
  workspaceId: string;
  role: Role;
  /** The synchronizer CSRF token: every mutating request by cookie sends it as `X-CSRF-Token`. */
  csrfToken: string;
}

interface ResolveRow {
  id: string;
  member_id: string;
  account_id: string;
  workspace_id: string;
  role: Role;
  csrf_token: string;
  stale: boolean;
}

/**
 * Server-side sessions (migration 030). A session ends when it is signed out, when it has not been
 * used for `idleMs`, at its absolute expiry, and when its member is removed (the row cascades) or
 * has their role changed (services end them).
 */
export class SessionsRepository {
  constructor(private readonly db: Db) {}

  /** Starts a session; the token (the cookie's value) is returned here once and stored only hashed. */
  async create(
    opts: { memberId: string; workspaceId: string; absoluteMs: number; ip?: string; userAgent?: string },
    trx?: Knex.Transaction,
  ): Promise<{ sessionId: string; token: string; csrfToken: string; expiresAt: Date }> {
    const token = `hs_${randomBytes(32).toString('base64url')}`;
    const csrfToken = randomBytes(32).toString('base64url');
    const sessionId = newId('session');
    const expiresAt = new Date(Date.now() + opts.absoluteMs);
    await (trx ?? this.db)('sessions').insert({
      id: sessionId,
      token_hash: hashToken(token),
      member_id: opts.memberId,
      workspace_id: opts.workspaceId,
      csrf_token: csrfToken,
      expires_at: expiresAt,
      ip: opts.ip?.slice(0, 100) ?? null,
      user_agent: opts.userAgent?.slice(0, 400) ?? null,
    });
    return { sessionId, token, csrfToken, expiresAt };
  }

  /**
   * The live session of a cookie's token, or undefined (unknown, signed out, idle past `idleMs`,
   * past its absolute expiry). Its last-seen time, and its member's, are moved on at most once a minute.
   */
  async resolve({ token, idleMs }: { token: string; idleMs: number }): Promise<ResolvedSession | undefined> {
    const result = await this.db.raw<{ rows: ResolveRow[] }>(
      `select s.id, s.member_id, m.account_id, s.workspace_id, m.role, s.csrf_token,
              s.last_seen_at < now() - (? * interval '1 millisecond') as stale
         from sessions s join members m on m.id = s.member_id
        where s.token_hash = ? and s.ended_at is null and s.expires_at > now()
          and s.last_seen_at > now() - (? * interval '1 millisecond')`,
      [TOUCH_EVERY_MS, hashToken(token), idleMs],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    if (row.stale) {
      await this.db.raw(
        `with s as (update sessions set last_seen_at = now() where id = ? returning member_id)
         update members set last_seen_at = now() from s where members.id = s.member_id`,
        [row.id],
      );
    }
    return {
      sessionId: row.id,
      memberId: row.member_id,
      accountId: row.account_id,
      workspaceId: row.workspace_id,
      role: row.role,
      csrfToken: row.csrf_token,
    };
  }

  /** A session's CSRF token and absolute expiry (for `GET /v1/session`), or undefined. */
  async info({ id }: { id: string }): Promise<{ csrfToken: string; expiresAt: Date } | undefined> {
    const row = await this.db('sessions').where({ id }).first<{ csrf_token: string; expires_at: Date } | undefined>('csrf_token', 'expires_at');
    return row ? { csrfToken: row.csrf_token, expiresAt: row.expires_at } : undefined;
  }

  /** Signs one session out (idempotent). */
  async end({ id }: { id: string }, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('sessions').where({ id }).whereNull('ended_at').update({ ended_at: this.db.fn.now() });
  }

  /** Ends every live session of a member (removed, role changed, or "sign out everywhere"); returns how many. */
  async endAllOfMember({ memberId }: { memberId: string }, trx?: Knex.Transaction): Promise<number> {
    return (trx ?? this.db)('sessions').where({ member_id: memberId }).whereNull('ended_at').update({ ended_at: this.db.fn.now() });
  }

  /** Ends every live session of an account, in every workspace (a password reset; "sign out everywhere"). */
  async endAllOfAccount({ accountId }: { accountId: string }, trx?: Knex.Transaction): Promise<number> {
    return (trx ?? this.db)('sessions')
      .whereIn('member_id', this.db('members').select('id').where({ account_id: accountId }))
      .whereNull('ended_at')
      .update({ ended_at: this.db.fn.now() });
  }
}
