// Long on purpose (about 470 lines): every statement of a turn's lifecycle (open, append, settle, end, notify) in
// one repository until issue 52 (point 1) moves the lifecycle into db/turns/.
import type { Knex } from 'knex';
import { newId } from '../../domain/ids';
import type { AgentConfig } from '../../domain/agent';
import type { Step, TurnEvent } from '../../domain/turn-events';
import type { AttachmentRef, ConversationRow, MessageRow } from './conversations';
import { type CreditRefusal, creditRefusalOf } from './credits';
import type { Db } from '../connect';
import { prepared, runPrepared } from '../prepared';
import { CARRY_EVENTS_MAX_BYTES, notificationPayloadSql, TURN_EVENTS_CHANNEL, type EventText } from '../turn-notification';

export interface TurnRow {
  id: string;
  conversation_id: string;
  workspace_id: string;
  status: TurnStatus;
  last_seq: number;
  /** Credits held back from the workspace's balance while it runs. */
  reserved: number;
  agent_id: string | null;
  writer: string | null;
  steps: Step[];
  /** What the turn cost once it ended (pg's decimal, as text); null while it runs. */
  cost: string | null;
  started_at: Date;
  finished_at: Date | null;
}

/** `cancelled`: `POST /v1/turns/:turnId/cancel` or the end of its conversation stopped it. */
export type TurnStatus = 'running' | 'done' | 'error' | 'cancelled';

/** A turn with its conversation and the configuration of its pinned agent version (none for a project's, or when gone). */
export interface TurnWithContext {
  turn: TurnRow;
  conversation: ConversationRow;
  version: AgentConfig | undefined;
}

/** The row `withContext` and `claimStep` select: rows as JSON, so their dates are strings. */
interface ContextRow {
  turn: Record<string, unknown>;
  conversation: Record<string, unknown>;
  config: AgentConfig | null;
}

function withDates<T>(row: Record<string, unknown>, keys: string[]): T {
  const out: Record<string, unknown> = { ...row };
  for (const k of keys) if (typeof out[k] === 'string') out[k] = new Date(out[k] as string);
  return out as T;
}

function decodeContext(row: ContextRow): TurnWithContext {
  return {
    turn: withDates<TurnRow>(row.turn, ['started_at', 'finished_at']),
    conversation: withDates<ConversationRow>(row.conversation, ['started_at', 'ended_at']),
    version: row.config ?? undefined,
  };
}

interface AdmitRow {
  refused: null | 'turn_in_progress' | 'running_turns_limit' | 'workspace' | 'agent_cap';
  running_id: string | null;
  running_count: string | null;
  available: string | null;
  cap: string | null;
  spent: string | null;
  turn_id: string | null;
}

/** What `admit` decided: the running turn's id (when it inserted one), or why not. */
export type TurnAdmitted =
  | { admitted: true; turnId: string | undefined }
  | { admitted: false; refused: 'turn_in_progress'; runningId: string | undefined }
  | { admitted: false; refused: 'running_turns_limit'; count: number }
  | { admitted: false; refused: 'credits'; credit: CreditRefusal };

interface SettleRow {
  settled: boolean;
  grade: AgentConfig['grade'];
  started_at: Date;
  input_tokens: string | null;
  output_tokens: string | null;
  cost: string | null;
}

/** What settling a turn did: whether this call ended it, and what it billed at which grade. */
export interface TurnSettlement {
  settled: boolean;
  grade: AgentConfig['grade'];
  startedAt: Date;
  usage: { inputTokens: number; outputTokens: number };
  cost: number;
}

interface StoredEvent {
  seq: number;
  event: TurnEvent;
}

/** A model step's claim (`claimStep`): prepared, as planning it cost more than running it. */
const CLAIM_STEP = prepared(
  'claim-step-1',
  `with a as (
         insert into activity_attempts (task_token, worker, workflow_id) values (?, ?, ?) on conflict (task_token) do nothing),
       t as (update turns set writer = ? where id = ? and status = 'running' returning *),
       x as (
         select to_jsonb(t) as turn, to_jsonb(c) as conversation, v.config, c.id as conversation_id,
                case when c.agent_id is null and c.project_id is not null then (select p.grade from projects p where p.id = c.project_id)
                     else coalesce(v.config->>'grade', 'standard') end as grade
           from t join conversations c on c.id = t.conversation_id
           left join agent_versions v on v.agent_id = c.agent_id and v.number = c.version)
       select x.turn, x.conversation, x.config,
              (select coalesce(json_agg(json_build_object('seq', w.seq, 'turn_id', w.turn_id, 'role', w.role, 'content', w.content,
                                                          'attachments', w.attachments, 'at', w.at, 'total', w.total) order by w.seq), '[]'::json)
                 from (select m.seq, m.turn_id, m.role, m.content, m.attachments, m.at,
                              sum(length(m.content)) over (order by m.seq desc) as through, count(*) over () as total
                         from messages m where m.conversation_id = x.conversation_id) w
                where w.through - length(w.content) <= coalesce((?::jsonb->>x.grade)::bigint, 0)) as recent
         from x`,
);

/**
 * `append`'s common table expressions, after `with` (opening a turn puts its own before them):
 * take n sequence numbers, insert the events under them, record the writer's output, NOTIFY.
 */
const APPEND_CTES = `t as (
         update turns set last_seq = last_seq + ?
          where id = ? and status = 'running' and (?::text is null or writer = ?)
          returning last_seq),
       ins as (
         insert into turn_events (turn_id, seq, type, data, step)
         select ?, t.last_seq - ? + e.ord, e.value->>'type', e.value, ?::int
           from t cross join jsonb_array_elements(?::jsonb) with ordinality as e(value, ord)
         returning seq, type, data),
       used as (
         update turn_step_usage set output_tokens = greatest(output_tokens, ?::int)
          where ?::int is not null and turn_id = ? and writer = ? and not final and exists (select 1 from t))
       select pg_notify(?, ${notificationPayloadSql('ins')}) from t`;

/** The bindings of `APPEND_CTES`, in order. */
function appendValues(input: { turnId: string; events: TurnEvent[]; step?: number; writer?: string; outputTokens?: number }): Knex.Value[] {
  const n = input.events.length;
  const writer = input.writer ?? null;
  const output = input.outputTokens ?? null;
  return [n, input.turnId, writer, writer, input.turnId, n, input.step ?? null, JSON.stringify(input.events), output, output, input.turnId, writer, TURN_EVENTS_CHANNEL, input.turnId];
}

/** `append`'s statement: one per text batch of every turn, so prepared outside a transaction. */
const APPEND_SQL = `with ${APPEND_CTES}`;
const APPEND = prepared('append-events-1', APPEND_SQL);

/** Events `eventsAfter` and `eventTextsAfter` read at most at once; a full page means more may follow. */
export const EVENTS_PAGE_SIZE = 1000;

/**
 * Turns and their event log. Appends take the next sequence numbers from `turns.last_seq` in the
 * same transaction, so the log is gap-free and ordered; an append names the writer (the activity
 * attempt) it expects, so a stale attempt that lost its lease cannot interleave its output.
 */
export class TurnsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Inserts a running turn holding `reserved` credits (admitted by `admit` in the same
   * transaction); `undefined` when the conversation already has one running.
   */
  async createRunning(
    input: { conversationId: string; workspaceId: string; agentId: string | null; reserved: number },
    trx: Knex.Transaction,
  ): Promise<TurnRow | undefined> {
    // The partial unique index (one running turn per conversation) decides races between replicas.
    const result = await trx.raw(
      `insert into turns (id, conversation_id, workspace_id, agent_id, reserved) values (?, ?, ?, ?, ?)
       on conflict (conversation_id) where status = 'running' do nothing
       returning *`,
      [newId('turn'), input.conversationId, input.workspaceId, input.agentId, input.reserved],
    );
    return (result as { rows: TurnRow[] }).rows[0];
  }

  /**
   * The checks every start of a turn shares and, with `conversationId`, the running turn's insert,
   * in one round trip (`admit_turn`, migrations 027 and 029, says what it checks in which order, under which
   * locks held to the caller's commit). Without `conversationId` only the checks run.
   */
  async admit(
    input: { workspaceId: string; agentId: string | null; conversationId: string | null; reserve: number; maxRunning: number },
    trx: Knex.Transaction,
  ): Promise<TurnAdmitted> {
    const { rows } = await trx.raw<{ rows: AdmitRow[] }>('select * from admit_turn(?, ?, ?, ?, ?, ?)', [
      input.workspaceId,
      input.agentId,
      input.conversationId,
      input.reserve,
      input.maxRunning,
      newId('turn'),
    ]);
    const row = rows[0] as AdmitRow;
    switch (row.refused) {
      case null:
        return { admitted: true, turnId: row.turn_id ?? undefined };
      case 'turn_in_progress':
        return { admitted: false, refused: 'turn_in_progress', runningId: row.running_id ?? undefined };
      case 'running_turns_limit':
        return { admitted: false, refused: 'running_turns_limit', count: Number(row.running_count) };
      case 'workspace':
      case 'agent_cap':
        return { admitted: false, refused: 'credits', credit: creditRefusalOf({ ...row, refused: row.refused }) };
    }
  }

  /** A turn with its conversation and the configuration of the agent version it is pinned to. */
  async withContext({ turnId }: { turnId: string }): Promise<TurnWithContext | undefined> {
    const row = await this.db('turns as t')
      .join('conversations as c', 'c.id', 't.conversation_id')
      .leftJoin('agent_versions as v', (j) => j.on('v.agent_id', 'c.agent_id').andOn('v.number', 'c.version'))
      .where('t.id', turnId)
      .first<ContextRow | undefined>(this.db.raw('to_jsonb(t) as turn'), this.db.raw('to_jsonb(c) as conversation'), 'v.config');
    return row ? decodeContext(row) : undefined;
  }

  /**
   * What a model step does first, in one round trip: records its attempt against this worker
   * (`activity_attempts`, workers/orphan-sweeper.ts: written even when the claim fails, so the
   * caller ends it), claims the running turn for `writer` (its appends are fenced to that writer
   * from then on), and reads it with its context and the conversation's newest messages whose text
   * adds up to at most `recentChars[grade]` characters (plus the one that crosses it), oldest
   * first, with how many messages the conversation has: a step loads a bounded window, not the
   * whole conversation (activities/history-window.ts). The grade is the pinned version's, or a
   * manager's project's. `undefined` when the turn is not running (finished, cancelled, or gone).
   */
  async claimStep(input: {
    turnId: string;
    writer: string;
    attempt: { taskToken: Uint8Array; worker: string; workflowId: string };
    recentChars: Record<AgentConfig['grade'], number>;
  }): Promise<(TurnWithContext & { recent: { rows: MessageRow[]; total: number } }) | undefined> {
    const rows = await runPrepared<ContextRow & { recent: Array<Omit<MessageRow, 'at'> & { at: string; total: number }> }>(this.db, CLAIM_STEP, [Buffer.from(input.attempt.taskToken), input.attempt.worker, input.attempt.workflowId, input.writer, input.turnId, JSON.stringify(input.recentChars)]);
    const row = rows[0];
    if (!row) return undefined;
    const recent = row.recent.map(({ total: _total, at, ...m }) => ({ ...m, at: new Date(at) }));
    return { ...decodeContext(row), recent: { rows: recent, total: row.recent[0]?.total ?? 0 } };
  }

  /** The id of the conversation's first turn (a run's conversation has just one), if any. */
  async firstOf({ conversationId }: { conversationId: string }, trx: Knex.Transaction): Promise<string | undefined> {
    const row = await trx('turns').where({ conversation_id: conversationId }).orderBy('started_at').first<{ id: string } | undefined>('id');
    return row?.id;
  }

  /** The events of these types, in order (a delegated turn's outcome and files, read by its manager). */
  async eventsOfTypes({ turnId, types }: { turnId: string; types: TurnEvent['type'][] }): Promise<TurnEvent[]> {
    const rows = await this.db('turn_events').where({ turn_id: turnId }).whereIn('type', types).orderBy('seq').select('data');
    return rows.map((r: { data: TurnEvent }) => r.data);
  }

  /**
   * Deletes up to `limit` events of turns that finished before `before`, keeping each turn's
   * `start` and terminal event (a replay still starts and ends). Returns how many were deleted.
   */
  async pruneEvents({ before, limit }: { before: Date; limit: number }): Promise<number> {
    return this.db('turn_events')
      .whereIn(
        ['turn_id', 'seq'],
        this.db('turn_events as e')
          .join('turns as t', 't.id', 'e.turn_id')
          .whereNot('t.status', 'running')
          .where('t.finished_at', '<', before)
          .whereNotIn('e.type', ['start', 'done', 'error'])
          .select('e.turn_id', 'e.seq')
          .limit(limit),
      )
      .delete();
  }

  /** The conversation's running turn, if any. */
  async running({ conversationId }: { conversationId: string }, trx?: Knex.Transaction): Promise<TurnRow | undefined> {
    return (trx ?? this.db)<TurnRow>('turns').where({ conversation_id: conversationId, status: 'running' }).first();
  }

  async get({ turnId, workspaceId }: { turnId: string; workspaceId?: string }): Promise<TurnRow | undefined> {
    const q = this.db<TurnRow>('turns').where({ id: turnId });
    if (workspaceId) q.andWhere({ workspace_id: workspaceId });
    return q.first();
  }


  /**
   * Appends events and announces them. With `writer`, appends only while that writer holds the
   * turn; returns false (and writes nothing) otherwise, or when the turn has finished. With
   * `outputTokens`, the same statement records the writer's output so far (`turn_step_usage`).
   */
  async append(
    input: { turnId: string; events: TurnEvent[]; step?: number; writer?: string; outputTokens?: number },
    trx?: Knex.Transaction,
  ): Promise<boolean> {
    if (input.events.length === 0) return true;
    // One statement (one round trip, atomic on its own): take n sequence numbers, insert the
    // events under them, and NOTIFY with their seq range and, when small, the events themselves
    // (db/turn-notification.ts) — or, when the turn has ended or another writer holds it, none of
    // the three. The billed output moves with the text the consumers were shown.
    const values = appendValues(input);
    // Outside a transaction (a model step's text), the prepared statement; inside one, as part of it.
    const rows = trx ? ((await trx.raw(APPEND_SQL, values)) as { rows: unknown[] }).rows : await runPrepared(this.db, APPEND, values);
    return rows.length > 0;
  }

  /**
   * What opening a turn writes after its admission, in one statement: the user message (with its
   * attachments' references), the conversation's title when it has none and `title` is given, and
   * the turn's `start` event, appended and announced as `append` does.
   */
  async opened(
    input: { turnId: string; conversationId: string; message: string; attachments: AttachmentRef[]; title: string | undefined },
    trx: Knex.Transaction,
  ): Promise<void> {
    const start: TurnEvent = { type: 'start', turnId: input.turnId };
    await trx.raw(
      `with m as (
         insert into messages (conversation_id, turn_id, role, content, attachments) values (?, ?, 'user', ?, ?::jsonb)),
       named as (
         update conversations set title = ? where id = ? and title is null and ?::text is not null),
       ${APPEND_CTES}`,
      [
        input.conversationId,
        input.turnId,
        input.message,
        input.attachments.length ? JSON.stringify(input.attachments) : null,
        input.title ?? null,
        input.conversationId,
        input.title ?? null,
        ...appendValues({ turnId: input.turnId, events: [start] }),
      ],
    );
  }

  /**
   * Changes the turn's visible step list and appends `before`, a `progress` event with the whole
   * new list, then `after` — all in one transaction. False when the turn is no longer running.
   */
  async changeSteps(input: {
    turnId: string;
    change: (steps: Step[]) => Step[];
    before?: TurnEvent[];
    after?: TurnEvent[];
  }): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const row = await trx('turns').where({ id: input.turnId, status: 'running' }).forUpdate().first('steps');
      if (!row) return false;
      const steps = input.change(row.steps as Step[]);
      await trx('turns').where({ id: input.turnId }).update({ steps: JSON.stringify(steps) });
      return this.append(
        { turnId: input.turnId, events: [...(input.before ?? []), { type: 'progress', steps }, ...(input.after ?? [])] },
        trx,
      );
    });
  }

  /** Events after `seq`, in order (at most `limit`). */
  async eventsAfter({ turnId, seq, limit = EVENTS_PAGE_SIZE }: { turnId: string; seq: number; limit?: number }): Promise<StoredEvent[]> {
    const rows = await this.db('turn_events')
      .where({ turn_id: turnId })
      .andWhere('seq', '>', seq)
      .orderBy('seq', 'asc')
      .limit(limit)
      .select('seq', 'data');
    return rows.map((r: { seq: number; data: TurnEvent }) => ({ seq: r.seq, event: r.data }));
  }

  /**
   * Events after `seq`, in order (at most `limit`), with their data as the stored JSON text: what a
   * stream writes, with no parse and stringify on the way.
   */
  async eventTextsAfter({ turnId, seq, limit = EVENTS_PAGE_SIZE }: { turnId: string; seq: number; limit?: number }): Promise<EventText[]> {
    return this.db('turn_events')
      .where({ turn_id: turnId })
      .andWhere('seq', '>', seq)
      .orderBy('seq', 'asc')
      .limit(limit)
      .select<EventText[]>('seq', 'type', this.db.raw('data::text as data'));
  }

  /** The text a model step has streamed so far, as a consumer shows it (a reset starts it over). */
  async stepText({ turnId, step }: { turnId: string; step: number }): Promise<string> {
    const rows = await this.db('turn_events').where({ turn_id: turnId, step, type: 'text' }).orderBy('seq').select('data');
    let text = '';
    for (const { data } of rows as Array<{ data: Extract<TurnEvent, { type: 'text' }> }>) text = data.reset ? data.text : text + data.text;
    return text;
  }

  /**
   * Ends a running turn and bills it, in one round trip: `settle_turn` (migration 026 says what it
   * does, in one transaction). `reply`, when given, becomes the assistant message; `usage` and
   * `rates` bill a turn whose steps recorded nothing (started before migration 017). Undefined
   * when the turn or its conversation is gone; `settled` false when it had already ended.
   */
  async settle(input: {
    turnId: string;
    status: Exclude<TurnStatus, 'running'>;
    terminal: TurnEvent;
    reply?: string;
    usage: { inputTokens: number; outputTokens: number };
    rates: Record<AgentConfig['grade'], number>;
  }): Promise<TurnSettlement | undefined> {
    const { rows } = await this.db.raw<{ rows: SettleRow[] }>('select * from settle_turn(?, ?, ?::jsonb, ?, ?, ?, ?::jsonb, ?, ?)', [
      input.turnId,
      input.status,
      JSON.stringify(input.terminal),
      input.reply ?? null,
      input.usage.inputTokens,
      input.usage.outputTokens,
      JSON.stringify(input.rates),
      TURN_EVENTS_CHANNEL,
      CARRY_EVENTS_MAX_BYTES,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    return {
      settled: row.settled,
      grade: row.grade,
      startedAt: row.started_at,
      usage: { inputTokens: Number(row.input_tokens ?? 0), outputTokens: Number(row.output_tokens ?? 0) },
      cost: Number(row.cost ?? 0),
    };
  }

  /**
   * Ends a running turn with its terminal event, in the caller's transaction. Returns false
   * when it had already ended (a retried final activity), so callers write nothing twice.
   */
  async finish(
    input: { turnId: string; status: Exclude<TurnStatus, 'running'>; terminal: TurnEvent; usage?: unknown; cost?: number },
    trx: Knex.Transaction,
  ): Promise<boolean> {
    // One statement: end the running turn (its row stays locked to the transaction's end), append
    // the terminal event under the next seq, close its pending approvals (docs/approvals.md) and
    // NOTIFY, as `append` does — or nothing at all when the turn had already ended.
    const result = await trx.raw(
      `with t as (
         update turns set last_seq = last_seq + 1, status = ?, finished_at = now(), usage = ?::jsonb, cost = ?
          where id = ? and status = 'running'
          returning last_seq),
       ins as (
         insert into turn_events (turn_id, seq, type, data, step)
         select ?, t.last_seq, ?::jsonb->>'type', ?::jsonb, null from t
         returning seq, type, data),
       closed as (
         update tool_approvals set status = 'cancelled', decided_at = now()
          where turn_id = ? and status = 'pending' and exists (select 1 from t))
       select pg_notify(?, ${notificationPayloadSql('ins')}) from t`,
      [
        input.status,
        input.usage === undefined ? null : JSON.stringify(input.usage),
        input.cost ?? null,
        input.turnId,
        input.turnId,
        JSON.stringify(input.terminal),
        JSON.stringify(input.terminal),
        input.turnId,
        TURN_EVENTS_CHANNEL,
        input.turnId,
      ],
    );
    return (result as { rows: unknown[] }).rows.length > 0;
  }

}
