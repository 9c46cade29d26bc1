import type { Knex } from 'knex';
import type { EvalCase, EvalCaseDefinition } from '../../domain/evals';
import type { Db } from '../connect';
import { iso } from '../rows';

interface EvalCaseRow {
  agent_id: string;
  case_id: string;
  definition: EvalCaseDefinition;
  created_at: Date;
  updated_at: Date;
}

function toEvalCase(row: EvalCaseRow): EvalCase {
  const { messages, parameters, checks } = row.definition;
  return { id: row.case_id, messages, parameters, checks, createdAt: iso(row.created_at), updatedAt: iso(row.updated_at) };
}

/** Per-agent evaluation cases (migration 022), beside the versions; they go when the agent goes (cascade). */
export class EvalCasesRepository {
  constructor(private readonly db: Db) {}

  /** The agent's cases, ordered by id. */
  async of({ agentId }: { agentId: string }): Promise<EvalCase[]> {
    const rows = await this.db<EvalCaseRow>('agent_eval_cases').where({ agent_id: agentId }).orderBy('case_id');
    return rows.map(toEvalCase);
  }

  /**
   * Creates the case or replaces its definition (`created_at` kept), unless that would give the
   * agent more than `max` cases: then nothing is written and the answer is `{ full: true }`.
   * Puts to one agent take turns (an advisory lock for the transaction), so concurrent ones cannot
   * together pass `max`. The caller holds the agent row in `trx` (AgentsService.whileExists).
   */
  async put(
    { agentId, caseId, definition, max }: { agentId: string; caseId: string; definition: EvalCaseDefinition; max: number },
    trx: Knex.Transaction,
  ): Promise<{ evalCase: EvalCase } | { full: true }> {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`eval-cases:${agentId}`]);
    const [others] = await trx('agent_eval_cases').where({ agent_id: agentId }).whereNot({ case_id: caseId }).count<{ n: string }[]>({ n: '*' });
    if (Number(others!.n) >= max) return { full: true };
    // jsonb goes in as text, like agent versions' config.
    const [row] = await trx('agent_eval_cases')
      .insert({ agent_id: agentId, case_id: caseId, definition: JSON.stringify(definition) })
      .onConflict(['agent_id', 'case_id'])
      .merge({ definition: trx.raw('excluded.definition'), updated_at: trx.fn.now() })
      .returning('*');
    return { evalCase: toEvalCase(row as EvalCaseRow) };
  }

  /** Deletes the case; false when the agent had none of that id. */
  async delete({ agentId, caseId }: { agentId: string; caseId: string }): Promise<boolean> {
    return (await this.db('agent_eval_cases').where({ agent_id: agentId, case_id: caseId }).delete()) > 0;
  }
}
