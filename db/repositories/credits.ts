import type { Knex } from 'knex';
import type { Db } from '../connect';
import { prepared, runPrepared } from '../prepared';

/** Why a turn may not start: its workspace cannot cover the reservation, or its agent reached its cap. */
export type CreditRefusal = { refused: 'workspace'; available: number } | { refused: 'agent_cap'; cap: number; spent: number };

/** An agent's credit cap and what counts against it. */
export interface AgentCreditCap {
  /** Null when the agent has no cap. */
  cap: number | null;
  /** Credits its finished turns and its eval judge calls cost, plus what its running turns hold. */
  spent: number;
}

/** `beginStep`'s statement: prepared, as planning it cost more than running it. */
const BEGIN_STEP = prepared(
  'begin-step-2',
  `with d as (select * from credit_check(?, ?, ?, ?::numeric)),
       begun as (
         insert into turn_step_usage (turn_id, writer, step, input_tokens, credits_per_1k)
         select ?, ?, ?, ?, ? from d where d.refused is null
         on conflict (turn_id, writer) do nothing)
       select available, cap, spent, refused from d`,
);

/** A row of `credit_check` (db/turns/sql/credits.v1.sql: the one credit rule of turns, model steps and judge calls). */
export interface CreditCheckRow {
  available: string | number | null;
  cap: string | number | null;
  spent: string | number | null;
  refused: 'workspace' | 'agent_cap' | null;
}

/** The refusal a `credit_check` row (or `admit_turn`'s, which carries it) says. */
export function creditRefusalOf(row: Omit<CreditCheckRow, 'refused'> & { refused: 'workspace' | 'agent_cap' }): CreditRefusal {
  return row.refused === 'workspace'
    ? { refused: 'workspace', available: Number(row.available ?? 0) }
    : { refused: 'agent_cap', cap: Number(row.cap), spent: Number(row.spent ?? 0) };
}

/** A check's row: a workspace that does not exist (no row) may spend nothing. */
export function checked(row: CreditCheckRow | undefined): CreditRefusal | undefined {
  if (!row) return { refused: 'workspace', available: 0 };
  return row.refused === null ? undefined : creditRefusalOf({ ...row, refused: row.refused });
}

/**
 * Reservations and per-agent caps (docs/http-api.md: Conversations and turns, "Credits"). A running turn
 * holds `turns.reserved` back from its workspace's balance; the hold ends with the turn (its
 * status leaves `running`), so nothing has to release it and a crash cannot leak it.
 */
export class CreditsRepository {
  constructor(private readonly db: Db) {}

  async capOf({ agentId }: { agentId: string }, trx?: Knex.Transaction): Promise<AgentCreditCap> {
    const q = trx ?? this.db;
    const row = await q('agent_credit_caps').where({ agent_id: agentId }).first<{ cap: number } | undefined>('cap');
    const { rows } = await q.raw<{ rows: { spent: string }[] }>('select spent from agent_credits_spent(?, null)', [agentId]);
    return { cap: row?.cap ?? null, spent: Number(rows[0]?.spent ?? 0) };
  }

  /**
   * Whether a running turn may make its next model step, which will cost at least `stepCredits`
   * (its input): the workspace's balance, less what its other running turns hold and what this
   * turn consumed so far, must cover it, and so must the agent's cap. Checked before every step,
   * so a turn stops at the step that reaches either: a cap is overshot by at most that one step.
   * When it may, the same statement records the attempt's input (`turn_step_usage`, as
   * `stepUsage.begin` would: a repeated call keeps the first row), so the step starts after one
   * round trip, not two.
   */
  async beginStep(input: {
    turnId: string;
    workspaceId: string;
    agentId: string | null;
    stepCredits: number;
    usage: { writer: string; step: number; inputTokens: number; creditsPer1k: number };
  }): Promise<CreditRefusal | undefined> {
    const { turnId, workspaceId, agentId, stepCredits, usage } = input;
    const rows = await runPrepared<CreditCheckRow>(this.db, BEGIN_STEP, [workspaceId, agentId, turnId, stepCredits, turnId, usage.writer, usage.step, usage.inputTokens, usage.creditsPer1k]);
    return checked(rows[0]);
  }

  /** Sets (or, with null, removes) an agent's cap. */
  async setCap({ agentId, cap }: { agentId: string; cap: number | null }, trx?: Knex.Transaction): Promise<void> {
    const q = trx ?? this.db;
    if (cap === null) {
      await q('agent_credit_caps').where({ agent_id: agentId }).delete();
      return;
    }
    await q('agent_credit_caps').insert({ agent_id: agentId, cap }).onConflict('agent_id').merge({ cap, updated_at: q.fn.now() });
  }
}
