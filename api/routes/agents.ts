import { z } from 'zod';
import {
  type Agent,
  agentSchema,
  createAgentSchema,
  playbookSchema,
  updateAgentSchema,
  versionItemSchema,
} from '../../domain/agent';
import { triggersBodySchema } from '../../domain/trigger';
import type { AgentsService } from '../../services/agents';
import { type ApiContext, workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';

export const agentIdParam = z.object({ agentId: z.string().min(1).max(100) });
const playbookParams = agentIdParam.extend({ name: z.string().min(1).max(200) });
const versionQuery = z
  .object({ version: z.coerce.number({ error: 'a version number' }).int('a whole number').min(1, 'at least 1').optional() })
  .strict();

/**
 * Notes a publish in the call's audit row: the version it built on and the one it made. Each
 * publish makes version N+1 from N under the agent's lock (AgentsRepository.publish), so the one
 * before is always the one below; creation makes version 1 from none.
 */
function published(ctx: ApiContext, agent: Agent): Agent {
  ctx.state.audit = { ...ctx.state.audit, ...(agent.version > 1 ? { versionBefore: agent.version - 1 } : {}), versionAfter: agent.version };
  return agent;
}

/**
 * Agents and their versions. Publishing operations (`PATCH`, `PUT …/workflows`,
 * `DELETE …/workflows/:name`, `PUT …/triggers`) each create exactly one new version.
 */
export function agentRoutes(r: ApiRouter, agents: AgentsService): void {
  r.add(
    {
      method: 'post', path: '/v1/agents', operationId: 'createAgent', tag: 'Agents', role: 'builder',
      summary: 'Create an agent (publishes version 1)',
      body: createAgentSchema,
      response: { status: 201, description: 'The new agent', schema: agentSchema },
      errors: ['agent_exists'],
    },
    async (ctx, { body }) => published(ctx, await agents.create(workspaceOf(ctx), body)),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents', operationId: 'listAgents', tag: 'Agents', role: 'viewer',
      summary: 'Every agent of the workspace at its latest version, newest first',
      response: { status: 200, description: 'The agents', schema: listSchema(agentSchema, { id: 'AgentList' }) },
    },
    async (ctx) => listOf(await agents.list(workspaceOf(ctx))),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId', operationId: 'getAgent', tag: 'Agents', role: 'viewer',
      summary: 'An agent at its latest version, or at `?version=N`',
      params: agentIdParam, query: versionQuery,
      response: { status: 200, description: 'The agent', schema: agentSchema },
      errors: ['agent_not_found', 'version_not_found'],
    },
    (ctx, { params, query }) => agents.get(workspaceOf(ctx), params.agentId, query.version),
  );
  r.add(
    {
      method: 'patch', path: '/v1/agents/:agentId', operationId: 'updateAgent', tag: 'Agents', role: 'builder',
      summary: 'Change configuration fields (publishes a version)',
      params: agentIdParam, body: updateAgentSchema,
      response: { status: 200, description: 'The agent at its new version', schema: agentSchema },
      errors: ['agent_not_found'],
    },
    async (ctx, { params, body }) => published(ctx, await agents.update(workspaceOf(ctx), params.agentId, body)),
  );
  r.add(
    {
      method: 'delete', path: '/v1/agents/:agentId', operationId: 'deleteAgent', tag: 'Agents', role: 'builder',
      summary: 'Delete an agent and everything it owns; its id is never reused',
      params: agentIdParam,
      response: { status: 204, description: 'Deleted' },
      errors: ['agent_not_found'],
    },
    (ctx, { params }) => agents.delete(workspaceOf(ctx), params.agentId),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/versions', operationId: 'listAgentVersions', tag: 'Agents', role: 'viewer',
      summary: 'Every version snapshot of the agent, newest first',
      params: agentIdParam,
      response: { status: 200, description: 'The snapshots', schema: listSchema(agentSchema, { id: 'AgentVersionList' }) },
      errors: ['agent_not_found'],
    },
    async (ctx, { params }) => listOf(await agents.versions(workspaceOf(ctx), params.agentId)),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/deployments', operationId: 'listAgentDeployments', tag: 'Agents', role: 'viewer',
      summary: 'The deployment list: one item a version, newest first',
      params: agentIdParam,
      response: { status: 200, description: 'The version items', schema: listSchema(versionItemSchema, { id: 'VersionItemList' }) },
      errors: ['agent_not_found'],
    },
    async (ctx, { params }) => listOf(await agents.versionItems(workspaceOf(ctx), params.agentId)),
  );
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/workflows', operationId: 'setAgentWorkflow', tag: 'Agents', role: 'builder',
      summary: 'Add a workflow, or replace the one of the same name (publishes a version)',
      params: agentIdParam, body: playbookSchema,
      response: { status: 200, description: 'The agent at its new version', schema: agentSchema },
      errors: ['agent_not_found'],
    },
    async (ctx, { params, body }) => published(ctx, await agents.setPlaybook(workspaceOf(ctx), params.agentId, body)),
  );
  r.add(
    {
      method: 'delete', path: '/v1/agents/:agentId/workflows/:name', operationId: 'removeAgentWorkflow', tag: 'Agents', role: 'builder',
      summary: 'Remove a workflow by name (publishes a version)',
      params: playbookParams,
      response: { status: 200, description: 'The agent at its new version', schema: agentSchema },
      errors: ['agent_not_found', 'workflow_not_found'],
    },
    async (ctx, { params }) => published(ctx, await agents.removePlaybook(workspaceOf(ctx), params.agentId, params.name)),
  );
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/triggers', operationId: 'setAgentTriggers', tag: 'Agents', role: 'builder',
      summary: 'Replace the triggers (publishes a version)',
      params: agentIdParam, body: triggersBodySchema,
      response: { status: 200, description: 'The agent at its new version', schema: agentSchema },
      errors: ['agent_not_found'],
    },
    async (ctx, { params, body }) => published(ctx, await agents.setTriggers(workspaceOf(ctx), params.agentId, body.triggers)),
  );
}
