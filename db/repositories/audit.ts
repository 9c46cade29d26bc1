import type { Knex } from 'knex';
import type { AuditEntry, AuditEvent, AuditFilters } from '../../domain/audit';
import { newId } from '../../domain/ids';
import type { Db } from '../connect';
import { type KeysetPage, keysetPage } from '../keyset';
import { iso } from '../rows';

/** A row of `audit_events` as stored (tests read them directly). */
export interface AuditRow {
  seq: number;
  id: string;
  at: Date;
  workspace_id: string | null;
  actor_kind: AuditEvent['actor']['kind'];
  actor_id: string | null;
  actor_role: AuditEvent['actor']['role'];
  actor_email: string | null;
  action: string;
  targets: Record<string, string>;
  version_before: number | null;
  version_after: number | null;
  outcome: string;
  status: number | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  detail: Record<string, unknown>;
}

/** What a row's free-text fields are cut to: a row stays small whatever a client sends. */
const MAX_TEXT = { ip: 100, userAgent: 400, requestId: 128, email: 320 } as const;

function toEvent(r: AuditRow): AuditEvent {
  return {
    id: r.id,
    at: iso(r.at),
    actor: { kind: r.actor_kind, id: r.actor_id, role: r.actor_role, email: r.actor_email },
    action: r.action,
    targets: r.targets,
    versionBefore: r.version_before,
    versionAfter: r.version_after,
    outcome: r.outcome,
    status: r.status,
    ip: r.ip,
    userAgent: r.user_agent,
    requestId: r.request_id,
    detail: r.detail,
  };
}

/** One page of the log, newest first; `nextCursor` is null on the last one. */
export type AuditPage = KeysetPage<AuditEvent>;

/**
 * The audit log (migration 031): rows are appended, listed and, past the retention, pruned —
 * never changed (the database refuses UPDATE and DELETE but for `audit_prune`).
 */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  /**
   * Appends one row; in the caller's transaction when given (a receipt that must commit with
   * what it records). A member's e-mail is filled in from their account when the entry has none,
   * in the same statement, so the row still names them after they leave.
   */
  async append(entry: AuditEntry, trx?: Knex.Transaction): Promise<string> {
    const q = trx ?? this.db;
    const id = newId('audit');
    const { actor } = entry;
    const email =
      actor.kind === 'member' && actor.id && !actor.email
        ? q.raw('(select a.email from members m join accounts a on a.id = m.account_id where m.id = ?)', [actor.id])
        : (actor.email?.slice(0, MAX_TEXT.email) ?? null);
    await q('audit_events').insert({
      id,
      workspace_id: entry.workspaceId,
      actor_kind: actor.kind,
      actor_id: actor.id ?? null,
      actor_role: actor.role ?? null,
      actor_email: email,
      action: entry.action,
      targets: JSON.stringify(entry.targets),
      version_before: entry.versionBefore ?? null,
      version_after: entry.versionAfter ?? null,
      outcome: entry.outcome,
      status: entry.status ?? null,
      ip: entry.ip?.slice(0, MAX_TEXT.ip) ?? null,
      user_agent: entry.userAgent?.slice(0, MAX_TEXT.userAgent) ?? null,
      request_id: entry.requestId?.slice(0, MAX_TEXT.requestId) ?? null,
      detail: JSON.stringify(entry.detail ?? {}),
    });
    return id;
  }

  /**
   * A workspace's rows matching `filters`, newest first: `limit` of them after `cursor` (the
   * `nextCursor` of the page before). Keyset pagination on `seq`: the pages neither repeat nor
   * skip a row that was written when the first was read, however many are appended meanwhile.
   */
  async list({ workspaceId, filters, cursor, limit }: { workspaceId: string; filters: AuditFilters; cursor?: string; limit: number }): Promise<AuditPage> {
    const q = this.db<AuditRow>('audit_events').where({ workspace_id: workspaceId });
    if (filters.actor !== undefined) q.andWhere({ actor_id: filters.actor });
    if (filters.action !== undefined) q.andWhere({ action: filters.action });
    if (filters.target !== undefined) q.andWhereRaw('audit_target_ids(targets) @> array[?]::text[]', [filters.target]);
    if (filters.since !== undefined) q.andWhere('at', '>=', new Date(filters.since));
    if (filters.until !== undefined) q.andWhere('at', '<', new Date(filters.until));
    if (cursor !== undefined) q.andWhere('seq', '<', cursor);
    // One more than asked: whether a next page exists, without a count.
    const rows = await q.orderBy('seq', 'desc').limit(limit + 1).select('*');
    return keysetPage(rows, limit, toEvent, (r) => String(r.seq));
  }

  /** Every matching row, newest first, read `batch` rows at a time (an export holds one batch in memory). */
  async *iterate({ workspaceId, filters, batch = 500 }: { workspaceId: string; filters: AuditFilters; batch?: number }): AsyncGenerator<AuditEvent> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.list({ workspaceId, filters, cursor, limit: batch });
      yield* page.data;
      if (page.nextCursor === null) return;
      cursor = page.nextCursor;
    }
  }

  /**
   * Deletes up to `limit` rows older than `before` through `audit_prune`, the one way rows leave
   * (the retention; workers/retention-pruner.ts). Returns how many it deleted.
   */
  async prune({ before, limit }: { before: Date; limit: number }): Promise<number> {
    const result = await this.db.raw<{ rows: Array<{ n: number }> }>('select audit_prune(?, ?) as n', [before, limit]);
    return result.rows[0]?.n ?? 0;
  }
}
