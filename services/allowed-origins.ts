import type { Repositories } from '../db/repositories';
import type { AllowedOrigins } from '../domain/allowed-origins';
import { AppError } from '../domain/errors';

/**
 * An agent's allowed origins (docs/publishing.md, "Allowed origins"), read and replaced by its
 * workspace. Kept apart from the versioned Agent record, like the credit cap: no deploy needed.
 */
export class AllowedOriginsService {
  constructor(private readonly deps: { repos: Repositories }) {}

  async get(workspaceId: string, agentId: string): Promise<AllowedOrigins> {
    await this.agent(workspaceId, agentId);
    return { origins: await this.deps.repos.allowedOrigins.of({ agentId }) };
  }

  /** `origins` is already normalised and deduplicated (domain/allowed-origins.ts). */
  async set(workspaceId: string, agentId: string, origins: string[]): Promise<AllowedOrigins> {
    await this.agent(workspaceId, agentId);
    await this.deps.repos.allowedOrigins.set({ agentId, origins });
    return { origins };
  }

  private async agent(workspaceId: string, agentId: string): Promise<void> {
    if (!(await this.deps.repos.agents.find({ workspaceId, agentId }))) throw new AppError('agent_not_found', 'no such agent');
  }
}
