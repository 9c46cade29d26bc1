import type { Knex } from 'knex';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import { AppError } from '../domain/errors';
import type { CreateProjectInput, Project, UpdateProjectInput } from '../domain/project';

const notFound = () => new AppError('project_not_found', 'no such project');

/**
 * Project rules: members are agents of the same workspace (another workspace's agent is a 404,
 * as if it did not exist); adding a member twice is a no-op; an archived project can be read
 * and deleted but rejects updates and member changes with 409 `project_archived`.
 */
export class ProjectsService {
  constructor(private readonly deps: { db: Db; repos: Repositories }) {}

  async create(workspaceId: string, input: CreateProjectInput): Promise<Project> {
    const { agents, ...fields } = input;
    return this.deps.db.transaction(async (trx) => {
      await this.assertAgents(workspaceId, agents, trx);
      const projectId = await this.deps.repos.projects.create({ workspaceId, input: fields }, trx);
      await this.deps.repos.projects.addMembers({ projectId, agentIds: [...new Set(agents)] }, trx);
      return (await this.deps.repos.projects.get({ workspaceId, projectId }, trx))!;
    });
  }

  list(workspaceId: string): Promise<Project[]> {
    return this.deps.repos.projects.list({ workspaceId });
  }

  async get(workspaceId: string, projectId: string): Promise<Project> {
    const p = await this.deps.repos.projects.get({ workspaceId, projectId });
    if (!p) throw notFound();
    return p;
  }

  update(workspaceId: string, projectId: string, input: UpdateProjectInput): Promise<Project> {
    return this.change(workspaceId, projectId, async (trx) => {
      await this.deps.repos.projects.update({ projectId, input }, trx);
      return true;
    });
  }

  addAgent(workspaceId: string, projectId: string, agentId: string): Promise<Project> {
    return this.change(workspaceId, projectId, async (trx) => {
      await this.assertAgents(workspaceId, [agentId], trx);
      return this.deps.repos.projects.addMembers({ projectId, agentIds: [agentId] }, trx);
    });
  }

  /**
   * An id that is no agent of the workspace is 404 `agent_not_found`, as on add (never a 200 that
   * removed nothing); an agent that is not a member is a no-op, so a retried remove still succeeds.
   */
  removeAgent(workspaceId: string, projectId: string, agentId: string): Promise<Project> {
    return this.change(workspaceId, projectId, async (trx) => {
      await this.assertAgents(workspaceId, [agentId], trx);
      return this.deps.repos.projects.removeMember({ projectId, agentId }, trx);
    });
  }

  /** Archiving an archived project is a no-op that answers the project. */
  async archive(workspaceId: string, projectId: string): Promise<Project> {
    return this.deps.db.transaction(async (trx) => {
      const row = await this.deps.repos.projects.lock({ workspaceId, projectId }, trx);
      if (!row) throw notFound();
      if (row.status !== 'archived') await this.deps.repos.projects.update({ projectId, input: { status: 'archived' } }, trx);
      return (await this.deps.repos.projects.get({ workspaceId, projectId }, trx))!;
    });
  }

  async delete(workspaceId: string, projectId: string): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      if (!(await this.deps.repos.projects.delete({ workspaceId, projectId }, trx))) throw notFound();
    });
  }

  /** Applies a change under the project's lock; `updatedAt` moves only when `apply` says something changed. */
  private async change(workspaceId: string, projectId: string, apply: (trx: Knex.Transaction) => Promise<boolean>): Promise<Project> {
    return this.deps.db.transaction(async (trx) => {
      const row = await this.deps.repos.projects.lock({ workspaceId, projectId }, trx);
      if (!row) throw notFound();
      if (row.status === 'archived') throw new AppError('project_archived', `project ${projectId} is archived`);
      if (await apply(trx)) await this.deps.repos.projects.update({ projectId, input: {} }, trx);
      return (await this.deps.repos.projects.get({ workspaceId, projectId }, trx))!;
    });
  }

  /** Holds each agent until the transaction ends, so a concurrent delete cannot pull it out from under the insert. */
  private async assertAgents(workspaceId: string, agentIds: string[], trx: Knex.Transaction): Promise<void> {
    for (const agentId of agentIds) {
      if (!(await this.deps.repos.agents.hold({ workspaceId, agentId }, trx))) {
        throw new AppError('agent_not_found', `no such agent ${agentId}`);
      }
    }
  }
}
