import type { Knex } from 'knex';
import type { Db } from '../connect';

/** Tokens a turn consumed, summed over its model steps' attempts. */
export interface ConsumedUsage {
  inputTokens: number;
  outputTokens: number;
  /** Credits at each step's own rate. */
  credits: number;
}

/** Credits a step row stands for, in SQL (rows of `turn_step_usage` as `u`). */
export const STEP_CREDITS_SQL = '(u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000';

/**
 * What each attempt of a model step consumed (migration 017). An attempt writes its row as it
 * goes, so its turn's settlement bills it however the attempt ends: what the row says when the
 * turn ends is what the step cost. Writes after the turn ended change nothing billed.
 */
export class StepUsageRepository {
  constructor(private readonly db: Db) {}

  /** Output counted so far (never lowered; not once the provider's usage is in), while the turn runs. */
  async progress({ turnId, writer, outputTokens }: { turnId: string; writer: string; outputTokens: number }): Promise<void> {
    await this.db.raw(
      `update turn_step_usage u set output_tokens = greatest(u.output_tokens, ?)
        where u.turn_id = ? and u.writer = ? and not u.final
          and exists (select 1 from turns t where t.id = u.turn_id and t.status = 'running')`,
      [outputTokens, turnId, writer],
    );
  }

  /** The provider's usage: it wins over the attempt's own count. */
  async final({ turnId, writer, inputTokens, outputTokens }: { turnId: string; writer: string; inputTokens: number; outputTokens: number }): Promise<void> {
    await this.db('turn_step_usage').where({ turn_id: turnId, writer }).update({ input_tokens: inputTokens, output_tokens: outputTokens, final: true });
  }

  /** A request the provider refused or could not take, before any output: it consumed nothing. */
  async waive({ turnId, writer }: { turnId: string; writer: string }): Promise<void> {
    await this.db('turn_step_usage').where({ turn_id: turnId, writer, output_tokens: 0, final: false }).update({ input_tokens: 0 });
  }

  /** The turn's consumption; undefined when no step recorded any (a turn started before migration 017). */
  async ofTurn({ turnId }: { turnId: string }, trx?: Knex.Transaction): Promise<ConsumedUsage | undefined> {
    const row = await (trx ?? this.db)('turn_step_usage as u')
      .where('u.turn_id', turnId)
      .first<{ rows: string; input: string | null; output: string | null; credits: string | null }>(
        this.db.raw('count(*) as rows'),
        this.db.raw('sum(u.input_tokens) as input'),
        this.db.raw('sum(u.output_tokens) as output'),
        this.db.raw(`sum(${STEP_CREDITS_SQL}) as credits`),
      );
    if (!row || Number(row.rows) === 0) return undefined;
    return { inputTokens: Number(row.input ?? 0), outputTokens: Number(row.output ?? 0), credits: Number(row.credits ?? 0) };
  }
}
