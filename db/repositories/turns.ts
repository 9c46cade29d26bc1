import type { Knex } from 'knex';
import { newId } from '../../domain/ids';
import type { Step, TurnEvent } from '../../domain/turn-events';
import type { Db } from '../connect';

export interface TurnRow {
  id: string;
  conversation_id: string;
  workspace_id: string;
  status: 'running' | 'done' | 'error';
  last_seq: number;
  writer: string | null;
  steps: Step[];
  started_at: Date;
  finished_at: Date | null;
}

export interface StoredEvent {
  seq: number;
  event: TurnEvent;
}

/** The channel the API LISTENs on; the payload is only the turn id. */
export const TURN_EVENTS_CHANNEL = 'turn_events';

/** Postgres' unique_violation: a second running turn for one conversation. */
const UNIQUE_VIOLATION = '23505';

/**
 * Turns and their event log. Appends take the next sequence numbers from `turns.last_seq` in the
 * same transaction, so the log is gap-free and ordered; an append names the writer (the activity
 * attempt) it expects, so a stale attempt that lost its lease cannot interleave its output.
 */
export class TurnsRepository {
  constructor(private readonly db: Db) {}

  /** Inserts a running turn; `undefined` when the conversation already has one running. */
  async createRunning(input: { conversationId: string; workspaceId: string }, trx: Knex.Transaction): Promise<TurnRow | undefined> {
    try {
      await trx.raw('savepoint create_turn');
      const [row] = await trx('turns')
        .insert({ id: newId('turn'), conversation_id: input.conversationId, workspace_id: input.workspaceId })
        .returning('*');
      await trx.raw('release savepoint create_turn');
      return row as TurnRow;
    } catch (e) {
      if ((e as { code?: string }).code !== UNIQUE_VIOLATION) throw e;
      await trx.raw('rollback to savepoint create_turn');
      return undefined;
    }
  }

  async running({ conversationId }: { conversationId: string }, trx?: Knex.Transaction): Promise<TurnRow | undefined> {
    return (trx ?? this.db)<TurnRow>('turns').where({ conversation_id: conversationId, status: 'running' }).first();
  }

  async get({ turnId, workspaceId }: { turnId: string; workspaceId?: string }): Promise<TurnRow | undefined> {
    const q = this.db<TurnRow>('turns').where({ id: turnId });
    if (workspaceId) q.andWhere({ workspace_id: workspaceId });
    return q.first();
  }

  /** Makes `writer` the only one allowed to append; false when the turn is no longer running. */
  async claim({ turnId, writer }: { turnId: string; writer: string }): Promise<boolean> {
    return (await this.db('turns').where({ id: turnId, status: 'running' }).update({ writer })) > 0;
  }

  /**
   * Appends events and announces them. With `writer`, appends only while that writer holds the
   * turn; returns false (and writes nothing) otherwise, or when the turn has finished.
   */
  async append(
    input: { turnId: string; events: TurnEvent[]; step?: number; writer?: string },
    trx?: Knex.Transaction,
  ): Promise<boolean> {
    if (input.events.length === 0) return true;
    const run = async (t: Knex.Transaction) => {
      const q = t('turns').where({ id: input.turnId, status: 'running' });
      if (input.writer) q.andWhere({ writer: input.writer });
      const [row] = await q.increment('last_seq', input.events.length).returning('last_seq');
      if (!row) return false;
      const first = (row as { last_seq: number }).last_seq - input.events.length + 1;
      await t('turn_events').insert(
        input.events.map((event, i) => ({
          turn_id: input.turnId,
          seq: first + i,
          type: event.type,
          data: JSON.stringify(event),
          step: input.step ?? null,
        })),
      );
      await t.raw('select pg_notify(?, ?)', [TURN_EVENTS_CHANNEL, input.turnId]);
      return true;
    };
    return trx ? run(trx) : this.db.transaction(run);
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
  async eventsAfter({ turnId, seq, limit = 1000 }: { turnId: string; seq: number; limit?: number }): Promise<StoredEvent[]> {
    const rows = await this.db('turn_events')
      .where({ turn_id: turnId })
      .andWhere('seq', '>', seq)
      .orderBy('seq', 'asc')
      .limit(limit)
      .select('seq', 'data');
    return rows.map((r: { seq: number; data: TurnEvent }) => ({ seq: r.seq, event: r.data }));
  }

  /** The text a model step has streamed so far, as a consumer shows it (a reset starts it over). */
  async stepText({ turnId, step }: { turnId: string; step: number }): Promise<string> {
    const rows = await this.db('turn_events').where({ turn_id: turnId, step, type: 'text' }).orderBy('seq').select('data');
    let text = '';
    for (const { data } of rows as Array<{ data: Extract<TurnEvent, { type: 'text' }> }>) text = data.reset ? data.text : text + data.text;
    return text;
  }

  /**
   * Ends a running turn with its terminal event, in the caller's transaction. Returns false
   * when it had already ended (a retried final activity), so callers write nothing twice.
   */
  async finish(
    input: { turnId: string; status: 'done' | 'error'; terminal: TurnEvent; usage?: unknown; cost?: number },
    trx: Knex.Transaction,
  ): Promise<boolean> {
    const locked = await trx<TurnRow>('turns').where({ id: input.turnId }).forUpdate().first();
    if (!locked || locked.status !== 'running') return false;
    await this.append({ turnId: input.turnId, events: [input.terminal] }, trx);
    await trx('turns')
      .where({ id: input.turnId })
      .update({
        status: input.status,
        finished_at: trx.raw('now()'),
        usage: input.usage === undefined ? null : JSON.stringify(input.usage),
        cost: input.cost ?? null,
      });
    return true;
  }
}
