import {
  deployBodySchema,
  deployProdBodySchema,
  prodDeploymentSchema,
  publicTokenSchema,
  rollbackBodySchema,
  testDeploymentSchema,
} from '../../domain/publishing';
import type { AuditNote } from '../../domain/audit';
import type { DeploymentsService } from '../../services/deployments';
import { type ApiContext, workspaceOf } from '../context';
import type { ApiRouter } from '../routing';
import { agentIdParam } from './agents';

/** The port the caller reached us on: deployment URLs use it unless AGENTS_URL_PORT says otherwise. */
function callerPort(ctx: ApiContext): number | undefined {
  const port = /:(\d+)$/.exec(ctx.host)?.[1];
  return port ? Number(port) : undefined;
}

/**
 * The call's audit row, for the service to fill as it learns the agent and the versions: a
 * deploy that fails half-way still names what it was about.
 */
function auditNote(ctx: ApiContext): AuditNote {
  ctx.state.audit ??= {};
  return ctx.state.audit;
}

/** Test and prod deployments, rollback, and the publishable token (SDK: `ws.agents.*`). */
export function deploymentRoutes(r: ApiRouter, deployments: DeploymentsService): void {
  r.add(
    {
      method: 'post', path: '/v1/deployments/test', operationId: 'deployToTest', tag: 'Deployments', role: 'builder',
      summary: 'Serve a version at an ephemeral test URL until `expiresAt` (the same answer while it is live)',
      body: deployBodySchema,
      response: { status: 200, description: 'The test URL', schema: testDeploymentSchema },
      errors: ['version_not_found', 'agent_not_publishable', 'temporal_unavailable'],
    },
    (ctx, { body }) => deployments.deployToTest(workspaceOf(ctx), body.versionId, callerPort(ctx), auditNote(ctx)),
  );
  r.add(
    {
      method: 'post', path: '/v1/deployments/prod', operationId: 'deployToProd', tag: 'Deployments', role: 'builder',
      summary: "Health-check a version and run the agent's eval gate, then make it production in one switch (idempotent for the current one)",
      body: deployProdBodySchema,
      response: { status: 200, description: 'The production URL and version', schema: prodDeploymentSchema },
      errors: ['version_not_found', 'agent_not_publishable', 'deploy_check_failed', 'agent_not_found', 'worker_timeout', 'temporal_unavailable'],
    },
    (ctx, { body }) => deployments.deployToProd(workspaceOf(ctx), body.versionId, callerPort(ctx), { skipEvals: body.skipEvals === true }, auditNote(ctx)),
  );
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/rollback', operationId: 'rollback', tag: 'Deployments', role: 'builder',
      summary: 'Make an earlier version production again, at once (no health check: it served before)',
      params: agentIdParam, body: rollbackBodySchema,
      response: { status: 204, description: 'Rolled back' },
      errors: ['agent_not_found', 'version_not_found', 'agent_not_deployed'],
    },
    (ctx, { params, body }) => deployments.rollback(workspaceOf(ctx), params.agentId, body.versionId, auditNote(ctx)),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/public-token', operationId: 'getPublicToken', tag: 'Deployments', role: 'viewer',
      summary: "The agent's publishable token (minted by its first prod deploy)",
      params: agentIdParam,
      response: { status: 200, description: 'The token', schema: publicTokenSchema },
      errors: ['agent_not_found', 'agent_not_deployed'],
    },
    async (ctx, { params }) => ({ token: await deployments.publicToken(workspaceOf(ctx), params.agentId) }),
  );
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/public-token/rotate', operationId: 'rotatePublicToken', tag: 'Deployments', role: 'builder',
      summary: 'Replace the publishable token; the old value is refused from now on',
      params: agentIdParam,
      response: { status: 200, description: 'The new token', schema: publicTokenSchema },
      errors: ['agent_not_found', 'agent_not_deployed'],
    },
    async (ctx, { params }) => ({ token: await deployments.rotatePublicToken(workspaceOf(ctx), params.agentId) }),
  );
}
