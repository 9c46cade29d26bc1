import type { Knex } from 'knex';
import type { Db } from '../connect';

/** Why a turn may not start: its workspace cannot cover the reservation, or its agent reached its cap. */
export type CreditRefusal = { refused: 'workspace'; available: number } | { refused: 'agent_cap'; cap: number; spent: number };

/** An agent's credit cap and what counts against it. */
export interface AgentCreditCap {
  /** Null when the agent has no cap. */
  cap: number | null;
  /** Credits its finished turns cost plus what its running turns reserve. */
  spent: number;
}

/**
 * Reservations and per-agent caps (README: Conversations and turns, "Credits"). A running turn
 * holds `turns.reserved` back from its workspace's balance; the hold ends with the turn (its
 * status leaves `running`), so nothing has to release it and a crash cannot leak it.
 */
export class CreditsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Whether a turn reserving `amount` may start, in the caller's transaction, which must go on to
   * insert that turn: the workspace row stays locked until it commits, so parallel starts in a
   * workspace are decided one after the other and cannot together promise more than its balance.
   */
  async admit(
    { workspaceId, agentId, amount }: { workspaceId: string; agentId: string | null; amount: number },
    trx: Knex.Transaction,
  ): Promise<CreditRefusal | undefined> {
    const workspace = await trx('workspaces').where({ id: workspaceId }).forUpdate().first<{ credits: number } | undefined>('credits');
    if (!workspace) return { refused: 'workspace', available: 0 };
    const held = await trx('turns').where({ workspace_id: workspaceId, status: 'running' }).sum<{ sum: number | null }>({ sum: 'reserved' }).first();
    const available = workspace.credits - Number(held?.sum ?? 0);
    // Nothing to reserve (a free model) still needs a positive balance, as before reservations.
    if (available < amount || available <= 0) return { refused: 'workspace', available };
    if (!agentId) return undefined;
    const { cap, spent } = await this.capOf({ agentId }, trx);
    if (cap !== null && spent + amount > cap) return { refused: 'agent_cap', cap, spent };
    return undefined;
  }

  async capOf({ agentId }: { agentId: string }, trx?: Knex.Transaction): Promise<AgentCreditCap> {
    const q = trx ?? this.db;
    const row = await q('agent_credit_caps').where({ agent_id: agentId }).first<{ cap: number } | undefined>('cap');
    const spent = await q('turns')
      .where({ agent_id: agentId })
      .first<{ spent: number | null }>(q.raw(`sum(case when status = 'running' then reserved else coalesce(cost, 0) end) as spent`));
    return { cap: row?.cap ?? null, spent: Number(spent?.spent ?? 0) };
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
