import type { Db } from '../connect';

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

  /**
   * The provider's usage: it wins over the attempt's own count. The same statement removes the
   * attempt's record (`activity_attempts`, keyed by `taskToken`): the attempt is over.
   */
  async final(input: { turnId: string; writer: string; inputTokens: number; outputTokens: number; taskToken: Uint8Array }): Promise<void> {
    await this.db.raw(
      `with ended as (delete from activity_attempts where task_token = ?)
       update turn_step_usage set input_tokens = ?, output_tokens = ?, final = true where turn_id = ? and writer = ?`,
      [Buffer.from(input.taskToken), input.inputTokens, input.outputTokens, input.turnId, input.writer],
    );
  }

  /** A request the provider refused or could not take, before any output: it consumed nothing. */
  async waive({ turnId, writer }: { turnId: string; writer: string }): Promise<void> {
    await this.db('turn_step_usage').where({ turn_id: turnId, writer, output_tokens: 0, final: false }).update({ input_tokens: 0 });
  }
}
