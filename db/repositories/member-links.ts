import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { newId } from '../../domain/ids';
import { normalizeEmail, type Invite, type LinkKind } from '../../domain/member';
import type { Role } from '../../domain/roles';
import type { Db } from '../connect';
import { iso } from '../rows';

/** Link tokens: `hl_` + 43 base64url characters (256 bits). Stored only as SHA-256. */
export const linkTokenPattern = /^hl_[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A one-time link as its consumer sees it, once. */
export interface ConsumedLink {
  id: string;
  kind: LinkKind;
  workspaceId: string;
  email: string;
  /** The role an invite grants; null for sign-in and reset links. */
  role: Role | null;
}

interface LinkRow {
  id: string;
  kind: LinkKind;
  workspace_id: string;
  email: string;
  role: Role | null;
  created_at: Date;
  expires_at: Date;
}

/**
 * One-time links (migration 030, `member_links`): invites, sign-in links and password resets. The
 * token is in the link's URL, shown or mailed once, and stored only as its SHA-256 — a long random
 * string needs no slow hash. A link is used by one UPDATE that also checks it is unused and
 * unexpired, so two requests racing with the same link cannot both succeed.
 */
export class MemberLinksRepository {
  constructor(private readonly db: Db) {}

  /** Makes a link; the token is returned here once. */
  async create(
    opts: { kind: LinkKind; workspaceId: string; email: string; role?: Role; createdBy?: string; ttlMs: number },
    trx?: Knex.Transaction,
  ): Promise<{ id: string; token: string; expiresAt: Date }> {
    const token = `hl_${randomBytes(32).toString('base64url')}`;
    const id = newId('link');
    const expiresAt = new Date(Date.now() + opts.ttlMs);
    await (trx ?? this.db)('member_links').insert({
      id,
      token_hash: hashToken(token),
      kind: opts.kind,
      workspace_id: opts.workspaceId,
      email: normalizeEmail(opts.email),
      role: opts.role ?? null,
      created_by: opts.createdBy ?? null,
      expires_at: expiresAt,
    });
    return { id, token, expiresAt };
  }

  /** The live (unused, unexpired) link of a token, without using it: what the link's page shows. */
  async peek({ token }: { token: string }, trx?: Knex.Transaction): Promise<ConsumedLink | undefined> {
    const row = await (trx ?? this.db)('member_links')
      .where({ token_hash: hashToken(token) })
      .whereNull('used_at')
      .where('expires_at', '>', this.db.fn.now())
      .first<LinkRow | undefined>();
    return row ? toLink(row) : undefined;
  }

  /** Uses a live link: once only, under races too. Undefined for an unknown, used or expired token. */
  async consume({ token }: { token: string }, trx?: Knex.Transaction): Promise<ConsumedLink | undefined> {
    const rows = await (trx ?? this.db)('member_links')
      .where({ token_hash: hashToken(token) })
      .whereNull('used_at')
      .where('expires_at', '>', this.db.fn.now())
      .update({ used_at: this.db.fn.now() })
      .returning<LinkRow[]>('*');
    return rows[0] ? toLink(rows[0]) : undefined;
  }

  /** A workspace's pending invites (unused, unexpired), newest first. */
  async pendingInvites({ workspaceId }: { workspaceId: string }, trx?: Knex.Transaction): Promise<Invite[]> {
    const rows = await (trx ?? this.db)<LinkRow>('member_links')
      .where({ workspace_id: workspaceId, kind: 'invite' })
      .whereNull('used_at')
      .where('expires_at', '>', this.db.fn.now())
      .orderBy('created_at', 'desc');
    return rows.map((r) => ({ id: r.id, email: r.email, role: r.role ?? 'viewer', createdAt: iso(r.created_at), expiresAt: iso(r.expires_at) }));
  }

  /** Revokes a pending invite (marks it used); false when there is no such pending invite. */
  async revokeInvite({ workspaceId, id }: { workspaceId: string; id: string }, trx?: Knex.Transaction): Promise<boolean> {
    const n = await (trx ?? this.db)('member_links')
      .where({ workspace_id: workspaceId, id, kind: 'invite' })
      .whereNull('used_at')
      .where('expires_at', '>', this.db.fn.now())
      .update({ used_at: this.db.fn.now() });
    return n > 0;
  }

  /** Voids the unused links of one kind for an e-mail in a workspace (a new reset link replaces older ones). */
  async voidUnused({ workspaceId, email, kind }: { workspaceId: string; email: string; kind: LinkKind }, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('member_links')
      .where({ workspace_id: workspaceId, email: normalizeEmail(email), kind })
      .whereNull('used_at')
      .update({ used_at: this.db.fn.now() });
  }
}

function toLink(row: LinkRow): ConsumedLink {
  return { id: row.id, kind: row.kind, workspaceId: row.workspace_id, email: row.email, role: row.role };
}
