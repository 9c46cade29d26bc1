import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Repositories } from '../db/repositories';
import { AppError } from '../domain/errors';
import { evalRunWorkflowId } from '../domain/runs/eval-run';
import { compareRuns, type EvalComparison, type EvalGate, type EvalRun, type EvalRunListItem } from '../domain/eval-runs';
import { VERSION_ID_HELP } from '../domain/publishing';
import type { TurnLimits } from '../domain/runs/turn';
import type { evalRunWorkflow } from '../workflows/eval-run';
import { AgentIdKey, EvalRunIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';
import type { AgentsService } from './agents';

interface EvalRunsDeps {
  repos: Repositories;
  temporal: Client;
  agents: AgentsService;
  opsQueue: string;
  turnsQueue: string;
  limits: TurnLimits;
}

/** Runs a list shows: the newest first, at most this many. */
const LIST_LIMIT = 50;

/**
 * Evaluation runs (docs/evals.md): started by a builder against any version of the agent, or by
 * `deployToProd`'s gate. A run is an `ops` workflow (`eval-run-<runId>`); its row, with the case
 * snapshot, is written first, so the run is readable from the answer on.
 */
export class EvalRunsService {
  constructor(private readonly deps: EvalRunsDeps) {}

  async start(workspaceId: string, agentId: string, body: { versionId: string; cases?: string[] | undefined }): Promise<EvalRun> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    const version = await this.deps.repos.deployments.version({ workspaceId, versionId: body.versionId });
    if (!version || version.agentId !== agentId) throw new AppError('version_not_found', `agent ${agentId} has no version ${body.versionId}; ${VERSION_ID_HELP}`);
    const all = await this.deps.repos.evalCases.of({ agentId });
    if (all.length === 0) throw new AppError('no_eval_cases', 'the agent has no evaluation cases to run: put one with agent.evals.put first');
    let cases = all;
    if (body.cases) {
      const wanted = new Set(body.cases);
      const unknown = [...wanted].filter((id) => !all.some((c) => c.id === id));
      if (unknown.length > 0) throw new AppError('eval_case_not_found', `the agent has no evaluation case ${unknown.join(', ')}`);
      cases = all.filter((c) => wanted.has(c.id));
    }
    const { id: runId } = await this.deps.repos.evalRuns.create({ workspaceId, agentId, versionNumber: version.number, purpose: 'manual', cases });
    try {
      await this.deps.temporal.workflow.start<typeof evalRunWorkflow>('evalRunWorkflow', {
        workflowId: evalRunWorkflowId(runId),
        taskQueue: this.deps.opsQueue,
        args: [{ runId, workspaceId, agentId, caseIds: cases.map((c) => c.id), limits: this.deps.limits, turnsQueue: this.deps.turnsQueue }],
        typedSearchAttributes: [
          { key: WorkspaceIdKey, value: workspaceId },
          { key: AgentIdKey, value: agentId },
          { key: EvalRunIdKey, value: runId },
        ],
      });
    } catch (e) {
      await this.deps.repos.evalRuns.finish({ runId, status: 'failed', error: 'the run could not be started' });
      throw new AppError('temporal_unavailable', 'the eval run could not be started; try again shortly', undefined, { cause: e });
    }
    return (await this.get(workspaceId, agentId, runId))!;
  }

  async get(workspaceId: string, agentId: string, runId: string): Promise<EvalRun> {
    const run = await this.deps.repos.evalRuns.get({ workspaceId, agentId, runId });
    if (!run) throw new AppError('eval_run_not_found', `agent ${agentId} has no eval run ${runId}`);
    return run;
  }

  async list(workspaceId: string, agentId: string): Promise<EvalRunListItem[]> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    return this.deps.repos.evalRuns.list({ agentId, limit: LIST_LIMIT });
  }

  /**
   * Asks the run to stop: its turns in flight are cancelled (each ends once, paying what it used)
   * and the run ends `cancelled`. A run already over is answered as it is.
   */
  async cancel(workspaceId: string, agentId: string, runId: string): Promise<EvalRun> {
    const run = await this.get(workspaceId, agentId, runId);
    if (run.status !== 'running') return run;
    try {
      await this.deps.temporal.workflow.getHandle(evalRunWorkflowId(runId)).cancel();
    } catch (e) {
      if (!(e instanceof WorkflowNotFoundError)) throw new AppError('temporal_unavailable', 'the eval run could not be cancelled; try again', undefined, { cause: e });
      // No workflow (it never started): nothing runs, so the row ends here.
      await this.deps.repos.evalRuns.finish({ runId, status: 'cancelled' });
    }
    return this.get(workspaceId, agentId, runId);
  }

  /** Which cases changed from run `before` to run `after` (both of this agent). */
  async compare(workspaceId: string, agentId: string, before: string, after: string): Promise<EvalComparison> {
    const [a, b] = await Promise.all([this.get(workspaceId, agentId, before), this.get(workspaceId, agentId, after)]);
    return compareRuns(a, b);
  }

  async gate(workspaceId: string, agentId: string): Promise<EvalGate> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    return (await this.deps.repos.evalRuns.gate({ agentId }))!;
  }

  async setGate(workspaceId: string, agentId: string, gate: EvalGate): Promise<EvalGate> {
    if (!(await this.deps.repos.evalRuns.setGate({ workspaceId, agentId, passRate: gate.passRate }))) throw new AppError('agent_not_found', 'no such agent');
    return gate;
  }
}
