import type { EvalCheckOutcome } from '../../domain/eval-runs';
import type { Db } from '../connect';
import { checked, type CreditCheckRow, type CreditRefusal } from './credits';

/** One attempt of one judge check of a case: its row's id, also its debit's key. */
export interface JudgeCallKey {
  runId: string;
  caseId: string;
  /** The check's index in the case. */
  check: number;
  /** The grading activity's attempt: each attempt's call is a call of its own. */
  attempt: number;
}

export const judgeCallId = (k: JudgeCallKey) => `judge:${k.runId}:${k.caseId}:${k.check}:${k.attempt}`;

/**
 * Debits the workspace the difference a write made to the call's `cost`, and keeps the ledger row
 * (`credit_debits`, keyed by the call) at that cost, in the write's own statement. `cur` reads the
 * cost before the write: an attempt's writes are sequential (one writer per row), so no other
 * write comes between.
 */
const DEBIT_DIFFERENCE = `
       ledger as (update credit_debits d set amount = upd.cost from upd where d.turn_id = upd.id)
  update workspaces w set credits = w.credits - (upd.cost - upd.before) from upd where w.id = upd.workspace_id and upd.cost <> upd.before`;

/**
 * Eval judge calls, admitted and billed like model steps (migration 029): `begin` runs the credit
 * rule every model step runs (`credit_check`) and, when it allows, records the call's input and
 * debits it; later writes debit what the call consumed beyond that. The agent's `spent` counts
 * every row's `cost`.
 */
export class JudgeCallsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Whether the call may start (the credit rule, with its input's credits as what it needs) and,
   * when it may, its row with its input and the debit of that input, in one statement. A repeated
   * call for the same key records and debits nothing more.
   */
  async begin(input: JudgeCallKey & { workspaceId: string; agentId: string; inputTokens: number; creditsPer1k: number }): Promise<CreditRefusal | undefined> {
    const id = judgeCallId(input);
    const need = (input.inputTokens / 1000) * input.creditsPer1k;
    const { rows } = await this.db.raw<{ rows: CreditCheckRow[] }>(
      `with d as (select * from credit_check(?, ?, null, ?::numeric)),
            begun as (
              insert into judge_calls (id, workspace_id, agent_id, eval_run_id, case_id, check_index, input_tokens, credits_per_1k, cost)
              select ?, ?, ?, ?, ?, ?, ?, ?::numeric, round(?::numeric * ?::numeric / 1000, 6) from d where d.refused is null
              on conflict (id) do nothing
              returning id, workspace_id, cost),
            ledger as (
              insert into credit_debits (turn_id, workspace_id, amount) select id, workspace_id, cost from begun
              on conflict (turn_id) do nothing),
            debited as (update workspaces w set credits = w.credits - b.cost from begun b where w.id = b.workspace_id)
       select available, cap, spent, refused from d`,
      [
        input.workspaceId,
        input.agentId,
        need,
        id,
        input.workspaceId,
        input.agentId,
        input.runId,
        input.caseId,
        input.check,
        input.inputTokens,
        input.creditsPer1k,
        input.inputTokens,
        input.creditsPer1k,
      ],
    );
    return checked(rows[0]);
  }

  /** Output counted so far, for a call cut short (never lowered; not once the provider's usage is in). */
  async progress({ id, outputTokens }: { id: string; outputTokens: number }): Promise<void> {
    await this.db.raw(
      `with cur as (select j.id, j.cost from judge_calls j where j.id = ? and not j.final),
            upd as (
              update judge_calls j set output_tokens = greatest(j.output_tokens, ?),
                                       cost = round((j.input_tokens + greatest(j.output_tokens, ?)) * j.credits_per_1k / 1000, 6)
                from cur where j.id = cur.id
              returning j.id, j.workspace_id, j.cost, cur.cost as before),${DEBIT_DIFFERENCE}`,
      [id, outputTokens, outputTokens],
    );
  }

  /** The provider's usage, which wins over the call's own count, and the check's outcome. */
  async final({ id, inputTokens, outputTokens, outcome }: { id: string; inputTokens: number; outputTokens: number; outcome: EvalCheckOutcome }): Promise<void> {
    await this.db.raw(
      `with cur as (select j.id, j.cost from judge_calls j where j.id = ? and not j.final),
            upd as (
              update judge_calls j set input_tokens = ?, output_tokens = ?, final = true, outcome = ?::jsonb,
                                       cost = round((?::bigint + ?::bigint) * j.credits_per_1k / 1000, 6)
                from cur where j.id = cur.id
              returning j.id, j.workspace_id, j.cost, cur.cost as before),${DEBIT_DIFFERENCE}`,
      [id, inputTokens, outputTokens, JSON.stringify(outcome), inputTokens, outputTokens],
    );
  }

  /** A request the provider refused or could not take, before any output: it consumed nothing, and its input is given back. */
  async waive({ id }: { id: string }): Promise<void> {
    await this.db.raw(
      `with cur as (select j.id, j.cost from judge_calls j where j.id = ? and not j.final and j.output_tokens = 0),
            upd as (
              update judge_calls j set input_tokens = 0, cost = 0 from cur where j.id = cur.id
              returning j.id, j.workspace_id, j.cost, cur.cost as before),${DEBIT_DIFFERENCE}`,
      [id],
    );
  }

  /** Outcomes the case's finished calls gave, by check index (any attempt's): a retried grading reuses them. */
  async outcomes({ runId, caseId }: { runId: string; caseId: string }): Promise<Map<number, EvalCheckOutcome>> {
    const rows = await this.db('judge_calls')
      .where({ eval_run_id: runId, case_id: caseId, final: true })
      .whereNotNull('outcome')
      .orderBy('created_at')
      .select<{ check_index: number; outcome: EvalCheckOutcome }[]>('check_index', 'outcome');
    return new Map(rows.map((r) => [r.check_index, r.outcome]));
  }

  /** What the case's judge calls cost, every attempt's. */
  async costOf({ runId, caseId }: { runId: string; caseId: string }): Promise<number> {
    const row = await this.db('judge_calls').where({ eval_run_id: runId, case_id: caseId }).first<{ cost: string | null }>(this.db.raw('sum(cost) as cost'));
    return Number(row?.cost ?? 0);
  }
}
