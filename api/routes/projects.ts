import { z } from 'zod';
import { addMemberSchema, createProjectSchema, memberAgentId, projectSchema, updateProjectSchema } from '../../domain/project';
import type { ProjectsService } from '../../services/projects';
import { workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';

export const projectIdParam = z.object({ projectId: z.string().min(1).max(100) });
const memberParams = projectIdParam.extend({ agentId: memberAgentId });

/** Projects: agents grouped under a goal and manager instructions. */
export function projectRoutes(r: ApiRouter, projects: ProjectsService): void {
  r.add(
    {
      method: 'post', path: '/v1/projects', operationId: 'createProject', tag: 'Projects', role: 'builder',
      summary: 'Create a project (optionally with member agents)',
      body: createProjectSchema,
      response: { status: 201, description: 'The new project', schema: projectSchema },
      errors: ['agent_not_found'],
    },
    (ctx, { body }) => projects.create(workspaceOf(ctx), body),
  );
  r.add(
    {
      method: 'get', path: '/v1/projects', operationId: 'listProjects', tag: 'Projects', role: 'viewer',
      summary: 'Every project of the workspace, newest first',
      response: { status: 200, description: 'The projects', schema: listSchema(projectSchema, { id: 'ProjectList' }) },
    },
    async (ctx) => listOf(await projects.list(workspaceOf(ctx))),
  );
  r.add(
    {
      method: 'get', path: '/v1/projects/:projectId', operationId: 'getProject', tag: 'Projects', role: 'viewer',
      summary: 'A project with its members',
      params: projectIdParam,
      response: { status: 200, description: 'The project', schema: projectSchema },
      errors: ['project_not_found'],
    },
    (ctx, { params }) => projects.get(workspaceOf(ctx), params.projectId),
  );
  r.add(
    {
      method: 'patch', path: '/v1/projects/:projectId', operationId: 'updateProject', tag: 'Projects', role: 'builder',
      summary: 'Change name, goal, manager instructions or grade',
      params: projectIdParam, body: updateProjectSchema,
      response: { status: 200, description: 'The project', schema: projectSchema },
      errors: ['project_not_found', 'project_archived'],
    },
    (ctx, { params, body }) => projects.update(workspaceOf(ctx), params.projectId, body),
  );
  r.add(
    {
      method: 'post', path: '/v1/projects/:projectId/agents', operationId: 'addProjectAgent', tag: 'Projects', role: 'builder',
      summary: 'Add an agent of the workspace as a member (adding twice is a no-op)',
      params: projectIdParam, body: addMemberSchema,
      response: { status: 200, description: 'The project', schema: projectSchema },
      errors: ['project_not_found', 'agent_not_found', 'project_archived'],
    },
    (ctx, { params, body }) => projects.addAgent(workspaceOf(ctx), params.projectId, body.agentId),
  );
  r.add(
    {
      method: 'delete', path: '/v1/projects/:projectId/agents/:agentId', operationId: 'removeProjectAgent', tag: 'Projects', role: 'builder',
      summary: 'Remove a member (removing an agent of the workspace that is not a member is a no-op)',
      params: memberParams,
      response: { status: 200, description: 'The project', schema: projectSchema },
      errors: ['project_not_found', 'agent_not_found', 'project_archived'],
    },
    (ctx, { params }) => projects.removeAgent(workspaceOf(ctx), params.projectId, params.agentId),
  );
  r.add(
    {
      method: 'post', path: '/v1/projects/:projectId/archive', operationId: 'archiveProject', tag: 'Projects', role: 'builder',
      summary: 'Archive the project: it stays readable and deletable, and refuses changes',
      params: projectIdParam,
      response: { status: 200, description: 'The project', schema: projectSchema },
      errors: ['project_not_found'],
    },
    (ctx, { params }) => projects.archive(workspaceOf(ctx), params.projectId),
  );
  r.add(
    {
      method: 'delete', path: '/v1/projects/:projectId', operationId: 'deleteProject', tag: 'Projects', role: 'builder',
      summary: 'Delete the project (its member agents stay)',
      params: projectIdParam,
      response: { status: 204, description: 'Deleted' },
      errors: ['project_not_found'],
    },
    (ctx, { params }) => projects.delete(workspaceOf(ctx), params.projectId),
  );
}
