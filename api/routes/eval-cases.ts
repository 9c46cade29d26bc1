import { evalCaseBodySchema, evalCaseIdSchema, evalCaseSchema, storedEvalCaseIdSchema } from '../../domain/evals';
import type { EvalCasesService } from '../../services/eval-cases';
import { workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';
import { agentIdParam } from './agents';

const putParams = agentIdParam.extend({ caseId: evalCaseIdSchema });
const storedParams = agentIdParam.extend({ caseId: storedEvalCaseIdSchema });

/** An agent's evaluation cases (not versioned): `agent.evals.list/put/remove` in the SDK. */
export function evalCaseRoutes(r: ApiRouter, cases: EvalCasesService): void {
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/evals', operationId: 'listEvalCases', tag: 'Agents', role: 'viewer',
      summary: "The agent's evaluation cases, ordered by id",
      params: agentIdParam,
      response: { status: 200, description: 'The cases', schema: listSchema(evalCaseSchema, { id: 'EvalCaseList' }) },
      errors: ['agent_not_found'],
    },
    async (ctx, { params }) => listOf(await cases.list(workspaceOf(ctx), params.agentId)),
  );
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/evals/:caseId', operationId: 'putEvalCase', tag: 'Agents', role: 'builder',
      summary: 'Create or replace an evaluation case (at most 200 an agent); publishes no version',
      params: putParams, body: evalCaseBodySchema,
      response: { status: 200, description: 'The case as stored, defaults filled in; `createdAt` kept on a replace', schema: evalCaseSchema },
      errors: ['agent_not_found', 'eval_case_limit'],
    },
    (ctx, { params, body }) => cases.put(workspaceOf(ctx), params.agentId, params.caseId, body),
  );
  r.add(
    {
      method: 'delete', path: '/v1/agents/:agentId/evals/:caseId', operationId: 'deleteEvalCase', tag: 'Agents', role: 'builder',
      summary: 'Delete an evaluation case',
      params: storedParams,
      response: { status: 204, description: 'Deleted' },
      errors: ['agent_not_found', 'eval_case_not_found'],
    },
    (ctx, { params }) => cases.remove(workspaceOf(ctx), params.agentId, params.caseId),
  );
}
