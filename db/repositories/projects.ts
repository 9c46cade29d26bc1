import type { Knex } from 'knex';
import { newId } from '../../domain/ids';
import type { CreateProjectInput, Member, Project, UpdateProjectInput } from '../../domain/project';
import type { Db } from '../connect';
import { iso } from '../rows';

interface ProjectRow {
  id: string;
  workspace_id: string;
  name: string;
  goal: string | null;
  manager_instructions: string | null;
  grade: Project['grade'];
  status: Project['status'];
  created_at: Date;
  updated_at: Date;
}

/** Projects and their members. Queries are scoped by workspace; one object argument + optional transaction. */
export class ProjectsRepository {
  constructor(private readonly db: Db) {}

  private async members(projectIds: string[], trx?: Knex.Transaction): Promise<Map<string, Member[]>> {
    const out = new Map<string, Member[]>(projectIds.map((id) => [id, []]));
    if (projectIds.length === 0) return out;
    // A member's name is its agent's current name (from the latest version).
    const rows = await (trx ?? this.db)('project_members as m')
      .join('agents as a', 'a.id', 'm.agent_id')
      .join('agent_versions as v', (j) => j.on('v.agent_id', 'a.id').andOn('v.number', 'a.current_version'))
      .whereIn('m.project_id', projectIds)
      .orderBy([{ column: 'm.added_at', order: 'asc' }, { column: 'm.agent_id', order: 'asc' }])
      .select('m.project_id', 'm.agent_id', 'm.added_at', this.db.raw("v.config->>'name' as name"));
    for (const r of rows) out.get(r.project_id)?.push({ agentId: r.agent_id, name: r.name, addedAt: iso(r.added_at) });
    return out;
  }

  private async hydrate(rows: ProjectRow[], trx?: Knex.Transaction): Promise<Project[]> {
    const members = await this.members(rows.map((r) => r.id), trx);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      goal: r.goal,
      managerInstructions: r.manager_instructions,
      grade: r.grade,
      status: r.status,
      agents: members.get(r.id) ?? [],
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    }));
  }

  async create(
    { workspaceId, input }: { workspaceId: string; input: Omit<CreateProjectInput, 'agents'> },
    trx: Knex.Transaction,
  ): Promise<string> {
    const id = newId('project');
    await trx('projects').insert({
      id,
      workspace_id: workspaceId,
      name: input.name,
      goal: input.goal,
      manager_instructions: input.managerInstructions,
      grade: input.grade,
    });
    return id;
  }

  async list({ workspaceId }: { workspaceId: string }): Promise<Project[]> {
    const rows = await this.db<ProjectRow>('projects')
      .where({ workspace_id: workspaceId })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
    return this.hydrate(rows);
  }

  async get({ workspaceId, projectId }: { workspaceId: string; projectId: string }, trx?: Knex.Transaction): Promise<Project | undefined> {
    const row = await (trx ?? this.db)<ProjectRow>('projects').where({ id: projectId, workspace_id: workspaceId }).first();
    return row ? (await this.hydrate([row], trx))[0] : undefined;
  }

  /** Locks the project row for a change; undefined when absent. */
  async lock({ workspaceId, projectId }: { workspaceId: string; projectId: string }, trx: Knex.Transaction): Promise<ProjectRow | undefined> {
    return trx<ProjectRow>('projects').where({ id: projectId, workspace_id: workspaceId }).forUpdate().first();
  }

  async update({ projectId, input }: { projectId: string; input: UpdateProjectInput & { status?: Project['status'] } }, trx: Knex.Transaction): Promise<void> {
    const patch: Record<string, unknown> = { updated_at: trx.raw('now()') };
    if (input.name !== undefined) patch.name = input.name;
    if (input.goal !== undefined) patch.goal = input.goal;
    if (input.managerInstructions !== undefined) patch.manager_instructions = input.managerInstructions;
    if (input.grade !== undefined) patch.grade = input.grade;
    if (input.status !== undefined) patch.status = input.status;
    await trx('projects').where({ id: projectId }).update(patch);
  }

  /** Adds members; adding one that is already there keeps its original `addedAt`. */
  /** Whether any of them was not a member yet. */
  async addMembers({ projectId, agentIds }: { projectId: string; agentIds: string[] }, trx: Knex.Transaction): Promise<boolean> {
    if (agentIds.length === 0) return false;
    const added = await trx('project_members')
      .insert(agentIds.map((agentId) => ({ project_id: projectId, agent_id: agentId })))
      .onConflict(['project_id', 'agent_id'])
      .ignore()
      .returning('agent_id');
    return added.length > 0;
  }

  /** Whether it was a member. */
  async removeMember({ projectId, agentId }: { projectId: string; agentId: string }, trx: Knex.Transaction): Promise<boolean> {
    return (await trx('project_members').where({ project_id: projectId, agent_id: agentId }).delete()) > 0;
  }

  async delete({ workspaceId, projectId }: { workspaceId: string; projectId: string }, trx: Knex.Transaction): Promise<boolean> {
    return (await trx('projects').where({ id: projectId, workspace_id: workspaceId }).delete()) > 0;
  }
}
