import type { Repositories } from '../db/repositories';
import type { CreditCap } from '../domain/credit-cap';
import { AppError } from '../domain/errors';

/**
 * Per-agent credit caps: a published agent's visitors, triggers and webhooks spend the workspace's
 * credits, and a cap stops one agent from spending them all. The cap is a lifetime total (raise it
 * to let the agent go on); kept apart from the versioned Agent record, whose shape the spec fixes.
 */
export class CreditCapsService {
  constructor(private readonly deps: { repos: Repositories }) {}

  async get(workspaceId: string, agentId: string): Promise<CreditCap> {
    await this.agent(workspaceId, agentId);
    const { cap, spent } = await this.deps.repos.credits.capOf({ agentId });
    return { agentId, credits: cap, spent };
  }

  async set(workspaceId: string, agentId: string, credits: number | null): Promise<CreditCap> {
    await this.agent(workspaceId, agentId);
    await this.deps.repos.credits.setCap({ agentId, cap: credits });
    return this.get(workspaceId, agentId);
  }

  private async agent(workspaceId: string, agentId: string): Promise<void> {
    if (!(await this.deps.repos.agents.find({ workspaceId, agentId }))) throw new AppError('agent_not_found', 'no such agent');
  }
}
