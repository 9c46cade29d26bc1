import type { Repositories } from '../db/repositories';
import { AppError } from '../domain/errors';
import { type EvalCase, type EvalCaseDefinition, MAX_EVAL_CASES } from '../domain/evals';
import type { AgentsService } from './agents';

/**
 * An agent's evaluation cases (docs/http-api.md, "Evaluation cases"), read and written by its
 * workspace. Kept beside the versioned Agent record, like allowed origins: no version is published.
 */
export class EvalCasesService {
  constructor(private readonly deps: { repos: Repositories; agents: AgentsService }) {}

  async list(workspaceId: string, agentId: string): Promise<EvalCase[]> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    return this.deps.repos.evalCases.of({ agentId });
  }

  /** Creates or replaces `caseId`, holding the agent so a concurrent delete cannot leave it behind. */
  async put(workspaceId: string, agentId: string, caseId: string, definition: EvalCaseDefinition): Promise<EvalCase> {
    const put = await this.deps.agents.whileExists(workspaceId, agentId, (trx) =>
      this.deps.repos.evalCases.put({ agentId, caseId, definition, max: MAX_EVAL_CASES }, trx),
    );
    if ('full' in put) {
      throw new AppError('eval_case_limit', `the agent has ${MAX_EVAL_CASES} evaluation cases, the most it may have: remove one first`);
    }
    return put.evalCase;
  }

  async remove(workspaceId: string, agentId: string, caseId: string): Promise<void> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    if (!(await this.deps.repos.evalCases.delete({ agentId, caseId }))) throw new AppError('eval_case_not_found', `the agent has no evaluation case ${caseId}`);
  }
}
