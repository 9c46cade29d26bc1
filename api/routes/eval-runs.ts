import { z } from 'zod';
import {
  evalComparisonSchema,
  evalGateSchema,
  evalRunIdSchema,
  evalRunListItemSchema,
  evalRunSchema,
  evalRunStartSchema,
} from '../../domain/eval-runs';
import type { EvalRunsService } from '../../services/eval-runs';
import { workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';
import { agentIdParam } from './agents';

const runParams = agentIdParam.extend({ runId: evalRunIdSchema });

/** An agent's eval runs and its eval gate: `agent.evals.run`, `agent.evalRuns.*`, `agent.evals.gate` in the SDK. */
export function evalRunRoutes(r: ApiRouter, runs: EvalRunsService): void {
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/eval-runs', operationId: 'startEvalRun', tag: 'Agents', role: 'reviewer',
      summary: "Run the agent's evaluation cases (all, or `cases`) against a version; answers at once, the run goes on",
      params: agentIdParam, body: evalRunStartSchema,
      response: { status: 202, description: 'The run, `running`, every case `pending`: poll GET …/eval-runs/{runId}', schema: evalRunSchema },
      errors: ['agent_not_found', 'version_not_found', 'no_eval_cases', 'eval_case_not_found', 'temporal_unavailable'],
    },
    (ctx, { params, body }) => runs.start(workspaceOf(ctx), params.agentId, body),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/eval-runs', operationId: 'listEvalRuns', tag: 'Agents', role: 'viewer',
      summary: "The agent's eval runs, newest first (the latest 50), without per-case evidence",
      params: agentIdParam,
      response: { status: 200, description: 'The runs', schema: listSchema(evalRunListItemSchema, { id: 'EvalRunList' }) },
      errors: ['agent_not_found'],
    },
    async (ctx, { params }) => listOf(await runs.list(workspaceOf(ctx), params.agentId)),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/eval-runs/:runId', operationId: 'getEvalRun', tag: 'Agents', role: 'viewer',
      summary: 'An eval run with each case\'s result and evidence (poll it while `running`)',
      params: runParams,
      response: { status: 200, description: 'The run', schema: evalRunSchema },
      errors: ['eval_run_not_found'],
    },
    (ctx, { params }) => runs.get(workspaceOf(ctx), params.agentId, params.runId),
  );
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/eval-runs/:runId/cancel', operationId: 'cancelEvalRun', tag: 'Agents', role: 'reviewer',
      summary: 'Cancel an eval run: its turns in flight end (paying what they used), then the run ends `cancelled`',
      params: runParams,
      response: { status: 202, description: 'The run as it stands (still `running` until its turns have ended; a run already over as it is)', schema: evalRunSchema },
      errors: ['eval_run_not_found', 'temporal_unavailable'],
    },
    (ctx, { params }) => runs.cancel(workspaceOf(ctx), params.agentId, params.runId),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/eval-runs/:runId/compare', operationId: 'compareEvalRuns', tag: 'Agents', role: 'viewer',
      summary: 'Which cases changed from run `before` (the query) to this run',
      params: runParams, query: z.object({ before: evalRunIdSchema }).strict(),
      response: { status: 200, description: 'Each case of either run with its status in both', schema: evalComparisonSchema },
      errors: ['eval_run_not_found'],
    },
    (ctx, { params, query }) => runs.compare(workspaceOf(ctx), params.agentId, query.before, params.runId),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/eval-gate', operationId: 'getEvalGate', tag: 'Agents', role: 'viewer',
      summary: 'What `deployToProd` requires of the eval runs (not versioned)',
      params: agentIdParam,
      response: { status: 200, description: 'The gate', schema: evalGateSchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params }) => runs.gate(workspaceOf(ctx), params.agentId),
  );
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/eval-gate', operationId: 'putEvalGate', tag: 'Agents', role: 'builder',
      summary: 'Set the pass rate `deployToProd` requires (null: no case that passes on production may fail); publishes no version',
      params: agentIdParam, body: evalGateSchema,
      response: { status: 200, description: 'The gate as stored', schema: evalGateSchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params, body }) => runs.setGate(workspaceOf(ctx), params.agentId, body),
  );
}
