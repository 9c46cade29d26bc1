// The one repository of a turn's lifecycle — admit, open, claim,
// append, settle, end — and the reads of its event log, each a short call of a statement
// (statements.ts) or a function (sql/), so the rules read in one folder.
import type { Knex } from 'knex';
import { newId } from '../../domain/ids';
import type { AgentConfig } from '../../domain/agent';
import type { Step, TurnEvent } from '../../domain/turn-events';
import type { AttachmentRef, MessageRow } from '../repositories/conversations';
import { creditRefusalOf } from '../repositories/credits';
import type { Db } from '../connect';
import { runPrepared } from '../prepared';
import { CARRY_EVENTS_MAX_BYTES, TURN_EVENTS_CHANNEL, type EventText } from './notification';
import { decodeContext, type AdmitRow, type ContextRow, type SettleRow, type StoredEvent, type TurnAdmitted, type TurnRow, type TurnSettlement, type TurnStatus, type TurnWithContext } from './rows';
import { APPEND, APPEND_CTES, APPEND_SQL, appendValues, CLAIM_STEP } from './statements';

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
   * The checks every start of a turn shares and, with `conversationId`, the running turn's insert,
   * in one round trip (sql/admit_turn.v1.sql says what it checks in which order, under which locks
   * held to the caller's commit). Without `conversationId` only the checks run.
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
    // events under them, and notify with their seq range and, when small, the events themselves
    // (sql/notify_turn_events.v1.sql) — or, when the turn has ended or another writer holds it,
    // none of the three. The billed output moves with the text the consumers were shown.
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
   * Ends a running turn and bills it, in one round trip: `settle_turn` (sql/settle_turn.v1.sql says what
   * it does, in one transaction), which ends it through `end_turn`. `reply`, when given, becomes the assistant message; `usage` and
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
   * Ends a running turn with its terminal event, in the caller's transaction, through `end_turn`
   * (sql/end_turn.v1.sql: the one ending of a turn, `settle` included). Returns false when it had
   * already ended (a retried final activity), so callers write nothing twice.
   */
  async finish(
    input: { turnId: string; status: Exclude<TurnStatus, 'running'>; terminal: TurnEvent; usage?: unknown; cost?: number },
    trx: Knex.Transaction,
  ): Promise<boolean> {
    const { rows } = await trx.raw<{ rows: Array<{ seq: number | null }> }>('select end_turn(?, ?, ?::jsonb, ?::jsonb, ?, ?, ?) as seq', [
      input.turnId,
      input.status,
      JSON.stringify(input.terminal),
      input.usage === undefined ? null : JSON.stringify(input.usage),
      input.cost ?? null,
      TURN_EVENTS_CHANNEL,
      CARRY_EVENTS_MAX_BYTES,
    ]);
    return rows[0]?.seq != null;
  }
}
