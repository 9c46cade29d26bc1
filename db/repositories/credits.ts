import type { Knex } from 'knex';
import type { Db } from '../connect';
import { prepared, runPrepared } from '../prepared';
import { STEP_CREDITS_SQL } from './step-usage';

/** Why a turn may not start: its workspace cannot cover the reservation, or its agent reached its cap. */
export type CreditRefusal = { refused: 'workspace'; available: number } | { refused: 'agent_cap'; cap: number; spent: number };

/** An agent's credit cap and what counts against it. */
export interface AgentCreditCap {
  /** Null when the agent has no cap. */
  cap: number | null;
  /** Credits its finished turns cost plus what its running turns reserve. */
  spent: number;
}

/** Credits a turn (`t`) has consumed so far: the sum of its model steps' rows. */
const CONSUMED_SQL = `(select coalesce(sum(${STEP_CREDITS_SQL}), 0) from turn_step_usage u where u.turn_id = t.id)`;
/** What a running turn holds back: its reservation, or what it consumed once that is more. */
const HOLD_SQL = `greatest(t.reserved, ${CONSUMED_SQL})`;

/** `beginStep`'s statement: prepared, as planning it cost more than running it. */
const BEGIN_STEP = prepared(
  'begin-step-1',
  `with r as (
         select w.credits
                  - coalesce((select sum(${HOLD_SQL}) from turns t where t.workspace_id = w.id and t.status = 'running' and t.id <> ?), 0)
                  - coalesce((select ${CONSUMED_SQL} from turns t where t.id = ?), 0) as available,
                c.cap,
                coalesce((select sum(case when t.id = ? then ${CONSUMED_SQL} when t.status = 'running' then ${HOLD_SQL} else coalesce(t.cost, 0) end)
                            from turns t where t.agent_id = c.agent_id), 0) as spent
           from workspaces w left join agent_credit_caps c on c.agent_id = ?::text
          where w.id = ?),
       d as (
         select r.*, r.available > 0 and r.available >= ?::numeric
                     and (r.cap is null or (r.spent < r.cap and r.spent + ?::numeric <= r.cap)) as allowed
           from r),
       begun as (
         insert into turn_step_usage (turn_id, writer, step, input_tokens, credits_per_1k)
         select ?, ?, ?, ?, ? from d where d.allowed
         on conflict (turn_id, writer) do nothing)
       select available, cap, spent, allowed from d`,
);

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
    const spent = await q('turns as t')
      .where({ 't.agent_id': agentId })
      .first<{ spent: number | null }>(q.raw(`sum(case when t.status = 'running' then ${HOLD_SQL} else coalesce(t.cost, 0) end) as spent`));
    return { cap: row?.cap ?? null, spent: Number(spent?.spent ?? 0) };
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
    const rows = await runPrepared<{ available: string; cap: string | null; spent: string; allowed: boolean }>(this.db, BEGIN_STEP, [turnId, turnId, turnId, agentId, workspaceId, stepCredits, stepCredits, turnId, usage.writer, usage.step, usage.inputTokens, usage.creditsPer1k]);
    const row = rows[0];
    if (!row) return { refused: 'workspace', available: 0 };
    if (row.allowed) return undefined;
    const available = Number(row.available);
    if (available <= 0 || available < stepCredits || row.cap === null) return { refused: 'workspace', available };
    return { refused: 'agent_cap', cap: Number(row.cap), spent: Number(row.spent) };
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
