import type { Knex } from 'knex';
import type { EvalCase } from '../../domain/evals';
import type { EvalRunPurpose } from '../../domain/runs/eval-run';
import { type EvalCaseResult, type EvalRun, type EvalRunListItem, summarize } from '../../domain/eval-runs';
import { randomToken } from '../../domain/ids';
import type { Db } from '../connect';
import { iso } from '../rows';

interface EvalRunRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  version_number: number;
  version_id: string;
  purpose: EvalRunPurpose;
  origin: string | null;
  status: EvalRun['status'];
  cases: EvalCase[];
  /** Results graded before migration 029 have no `errorCode`. */
  results: Record<string, Omit<EvalCaseResult, 'errorCode'> & Partial<Pick<EvalCaseResult, 'errorCode'>>>;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** A case not graded yet. */
const pending = (caseId: string, conversationId: string | null = null): EvalCaseResult => ({
  caseId,
  status: 'pending',
  checks: [],
  reply: null,
  toolCalls: [],
  credits: 0,
  conversationId,
  error: null,
  errorCode: null,
});

function toRun(row: EvalRunRow): EvalRun {
  const cases = row.cases.map((c) => {
    const result = row.results[c.id];
    return result ? { ...result, errorCode: result.errorCode ?? null } : pending(c.id);
  });
  return {
    id: row.id,
    agentId: row.agent_id,
    versionId: row.version_id,
    versionNumber: row.version_number,
    purpose: row.purpose,
    status: row.status,
    error: row.error,
    summary: summarize(cases),
    createdAt: iso(row.created_at),
    finishedAt: iso(row.finished_at),
    cases,
  };
}

const withVersionId = (q: Knex.QueryBuilder) =>
  q.join('agent_versions as v', (j) => j.on('v.agent_id', 'r.agent_id').andOn('v.number', 'r.version_number')).select('r.*', 'v.id as version_id');

/** Evaluation runs (migration 023): a snapshot of the cases, then each case's result as it is graded. */
export class EvalRunsRepository {
  constructor(private readonly db: Db) {}

  /**
   * A new running run of `cases` against version `versionNumber`. With an `origin`, a repeat finds
   * the run that origin already made (a retried start of a deployment's gate).
   */
  async create(
    input: { workspaceId: string; agentId: string; versionNumber: number; purpose: EvalRunPurpose; origin?: string; cases: EvalCase[] },
    trx?: Knex.Transaction,
  ): Promise<{ id: string; repeated: boolean }> {
    const q = trx ?? this.db;
    const id = `evr_${randomToken(20)}`;
    const inserted = await q('agent_eval_runs')
      .insert({
        id,
        workspace_id: input.workspaceId,
        agent_id: input.agentId,
        version_number: input.versionNumber,
        purpose: input.purpose,
        origin: input.origin ?? null,
        cases: JSON.stringify(input.cases),
      })
      .onConflict('origin')
      .ignore()
      .returning('id');
    if (inserted.length > 0) return { id, repeated: false };
    const row = await q('agent_eval_runs').where({ origin: input.origin }).first<{ id: string }>('id');
    return { id: row!.id, repeated: true };
  }

  /** The run with its results; scoped to the agent (and, from the API, its workspace). */
  async get({ runId, agentId, workspaceId }: { runId: string; agentId?: string; workspaceId?: string }): Promise<EvalRun | undefined> {
    const q = withVersionId(this.db('agent_eval_runs as r')).where('r.id', runId);
    if (agentId) q.where('r.agent_id', agentId);
    if (workspaceId) q.where('r.workspace_id', workspaceId);
    const row = (await q.first()) as EvalRunRow | undefined;
    if (!row) return undefined;
    // A case not graded yet (running, or its run cancelled) still names the conversation it started.
    const started = await this.db('conversations').where({ eval_run_id: runId }).select<{ id: string; eval_case_id: string }[]>('id', 'eval_case_id');
    const conversations = new Map(started.map((c) => [c.eval_case_id, c.id]));
    const run = toRun(row);
    return { ...run, cases: run.cases.map((c) => (c.conversationId === null ? { ...c, conversationId: conversations.get(c.caseId) ?? null } : c)) };
  }

  /** The agent's runs, newest first, without per-case evidence. */
  async list({ agentId, limit }: { agentId: string; limit: number }): Promise<EvalRunListItem[]> {
    const rows = (await withVersionId(this.db('agent_eval_runs as r'))
      .where('r.agent_id', agentId)
      .orderBy([{ column: 'r.created_at', order: 'desc' }, { column: 'r.id', order: 'desc' }])
      .limit(limit)) as EvalRunRow[];
    return rows.map((row) => {
      const { cases: _, ...item } = toRun(row);
      return item;
    });
  }

  /** The run's row as the worker needs it: its agent, version, status and case snapshot. */
  async snapshot({ runId }: { runId: string }, trx?: Knex.Transaction): Promise<Pick<EvalRunRow, 'workspace_id' | 'agent_id' | 'version_number' | 'status' | 'cases'> | undefined> {
    return (trx ?? this.db)('agent_eval_runs').where({ id: runId }).first('workspace_id', 'agent_id', 'version_number', 'status', 'cases');
  }

  /** Writes one case's result (a repeat overwrites it with the same). */
  async setResult({ runId, result }: { runId: string; result: EvalCaseResult }): Promise<void> {
    await this.db('agent_eval_runs')
      .where({ id: runId })
      .update({ results: this.db.raw('results || jsonb_build_object(?::text, ?::jsonb)', [result.caseId, JSON.stringify(result)]) });
  }

  /** Ends a running run; a run already ended keeps its status. */
  async finish({ runId, status, error }: { runId: string; status: Exclude<EvalRun['status'], 'running'>; error?: string }): Promise<void> {
    await this.db('agent_eval_runs').where({ id: runId, status: 'running' }).update({ status, error: error ?? null, finished_at: this.db.fn.now() });
  }

  /** The conversation of a run's case, if it was started. */
  async conversationOf({ runId, caseId }: { runId: string; caseId: string }, trx: Knex.Transaction): Promise<{ id: string } | undefined> {
    return trx('conversations').where({ eval_run_id: runId, eval_case_id: caseId }).first('id');
  }

  /** The pass rate `deployToProd` requires of the agent (null: the default rule). */
  async gate({ agentId }: { agentId: string }, trx?: Knex.Transaction): Promise<{ passRate: number | null } | undefined> {
    const row = await (trx ?? this.db)('agents').where({ id: agentId }).first<{ eval_pass_rate: string | null } | undefined>('eval_pass_rate');
    return row ? { passRate: row.eval_pass_rate === null ? null : Number(row.eval_pass_rate) } : undefined;
  }

  async setGate({ agentId, workspaceId, passRate }: { agentId: string; workspaceId: string; passRate: number | null }): Promise<boolean> {
    return (await this.db('agents').where({ id: agentId, workspace_id: workspaceId }).update({ eval_pass_rate: passRate })) > 0;
  }
}
