import type { Knex } from 'knex';
import { type ConversationSearchFilters, type ConversationSummary, searchWords } from '../../domain/conversation-search';
import type { Db } from '../connect';
import { decodeTimeIdCursor, encodeTimeIdCursor, type KeysetPage, keysetPage, timeKeySql } from '../keyset';
import { iso } from '../rows';
import type { ConversationRow } from './conversations';
import { endUserView } from './credentials';

/** A condition the caller's role adds (services/conversation-access.ts, `readableFilter`), on the alias `conv`. */
export interface SqlCondition {
  sql: string;
  bindings: Array<string | number>;
}

/** A conversation's columns the search shows, with its latest turn's (`turn_…`, null before the first). */
interface SearchRow
  extends Pick<
    ConversationRow,
    'id' | 'agent_id' | 'project_id' | 'version' | 'title' | 'started_at' | 'ended_at' | 'channel' | 'end_user_id' | 'end_user_name' | 'end_user_email' | 'visitor_verified'
  > {
  turn_id: string | null;
  turn_status: 'running' | 'done' | 'error' | 'cancelled' | null;
  turn_started_at: Date | null;
  turn_finished_at: Date | null;
  turn_waiting: boolean | null;
  /** `started_at` to the microsecond, for the cursor. */
  cursor_at: string;
}

function toSummary(r: SearchRow): ConversationSummary {
  return {
    id: r.id,
    agentId: r.agent_id,
    projectId: r.project_id,
    version: r.version,
    title: r.title,
    ...(r.end_user_id ? { endUser: endUserView(r) } : {}),
    startedAt: iso(r.started_at),
    endedAt: r.ended_at ? iso(r.ended_at) : null,
    lastTurn:
      r.turn_id !== null && r.turn_status !== null && r.turn_started_at !== null
        ? { id: r.turn_id, status: r.turn_status, startedAt: iso(r.turn_started_at), finishedAt: r.turn_finished_at ? iso(r.turn_finished_at) : null, waiting: r.turn_waiting === true }
        : null,
  };
}

/** `to_tsquery('simple', …)` text of a query: every word, each as a prefix (`inv:* & 20:*`). */
function prefixQuery(q: string): string {
  return searchWords(q)
    .map((w) => `${w}:*`)
    .join(' & ');
}

/** Applies the filters other than the cursor to the query over `conversations conv` joined with its latest turn `lt`. */
function applyFilters(q: Knex.QueryBuilder, workspaceId: string, f: ConversationSearchFilters): void {
  if (f.agentId !== undefined) q.andWhere('conv.agent_id', f.agentId);
  if (f.version !== undefined) q.andWhere('conv.version', f.version);
  if (f.projectId !== undefined) q.andWhere('conv.project_id', f.projectId);
  if (f.endUserId !== undefined) q.andWhere('conv.end_user_id', f.endUserId);
  if (f.since !== undefined) q.andWhere('conv.started_at', '>=', new Date(f.since));
  if (f.until !== undefined) q.andWhere('conv.started_at', '<', new Date(f.until));
  if (f.status === 'waiting') q.andWhereRaw(`lt.status = 'running' and lt.waiting`);
  else if (f.status === 'running') q.andWhereRaw(`lt.status = 'running' and not lt.waiting`);
  else if (f.status !== undefined) q.andWhere('lt.status', f.status);
  if (f.q !== undefined) {
    // Both sides found through their GIN indexes (migration 035), then one hashed set of ids that
    // the rows, read newest first, are looked up in. `coalesce` keeps the subquery a hashed
    // filter: bare, PostgreSQL makes it a join and compares every row with every match.
    const tsq = prefixQuery(f.q);
    q.andWhereRaw(
      `coalesce(conv.id in (
         select t.id from conversations t where t.workspace_id = ? and search_document(coalesce(t.title, '')) @@ to_tsquery('simple', ?)
         union all
         select m.conversation_id from messages m where search_document(m.content) @@ to_tsquery('simple', ?)), false)`,
      [workspaceId, tsq, tsq],
    );
  }
}

/**
 * The workspace-wide conversation search (`GET /v1/conversations`): every conversation of the
 * workspace but eval runs' (they are their run's, as in the agent's list), newest first by
 * (started_at, id), keyset-paged (db/keyset.ts). The latest turn is joined per row through
 * `turns (conversation_id, started_at desc, id desc)`.
 */
export class ConversationSearchRepository {
  constructor(private readonly db: Db) {}

  /** A page, or undefined when `cursor` is not one this list made. */
  async search({ workspaceId, filters, access, cursor, limit }: {
    workspaceId: string;
    filters: ConversationSearchFilters;
    access: SqlCondition | undefined;
    cursor?: string;
    limit: number;
  }): Promise<KeysetPage<ConversationSummary> | undefined> {
    const after = cursor === undefined ? undefined : decodeTimeIdCursor(cursor);
    if (cursor !== undefined && after === undefined) return undefined;
    const q = this.db('conversations as conv')
      .joinRaw(
        `left join lateral (
           select t.id, t.status, t.started_at, t.finished_at,
                  exists (select 1 from tool_approvals a where a.turn_id = t.id and a.status = 'pending') as waiting
             from turns t where t.conversation_id = conv.id order by t.started_at desc, t.id desc limit 1) lt on true`,
      )
      .where('conv.workspace_id', workspaceId)
      .whereNull('conv.eval_run_id');
    applyFilters(q, workspaceId, filters);
    if (access) q.andWhereRaw(access.sql, access.bindings);
    if (after) q.andWhereRaw('(conv.started_at, conv.id) < (?::timestamptz, ?)', [after.at, after.id]);
    const rows = (await q
      .orderBy([{ column: 'conv.started_at', order: 'desc' }, { column: 'conv.id', order: 'desc' }])
      .limit(limit + 1)
      .select(
        'conv.id', 'conv.agent_id', 'conv.project_id', 'conv.version', 'conv.title', 'conv.started_at', 'conv.ended_at', 'conv.channel',
        'conv.end_user_id', 'conv.end_user_name', 'conv.end_user_email', 'conv.visitor_verified',
        'lt.id as turn_id', 'lt.status as turn_status', 'lt.started_at as turn_started_at', 'lt.finished_at as turn_finished_at', 'lt.waiting as turn_waiting',
        this.db.raw(`${timeKeySql('conv.started_at')} as cursor_at`),
      )) as SearchRow[];
    return keysetPage(rows, limit, toSummary, (r) => encodeTimeIdCursor(r.cursor_at, r.id));
  }
}
