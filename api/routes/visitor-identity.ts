import { rotateVisitorSecretSchema, setVisitorIdentitySchema, visitorIdentitySchema, visitorSecretSchema } from '../../domain/visitor-identity';
import type { VisitorIdentityService } from '../../services/visitor-identity';
import { workspaceOf } from '../context';
import type { ApiRouter } from '../routing';
import { agentIdParam } from './agents';

/**
 * An agent's visitor identity (our addition; not versioned, so a change takes effect at once):
 * `agent.visitorIdentity()`, `agent.setVisitorIdentity(mode)` and `agent.rotateVisitorSecret()` in the SDK.
 */
export function visitorIdentityRoutes(r: ApiRouter, identity: VisitorIdentityService): void {
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/visitor-identity', operationId: 'getVisitorIdentity', tag: 'Agents', role: 'viewer',
      summary: "The agent's publicIdentity mode and its identity secret's dates (never the secret)",
      params: agentIdParam,
      response: { status: 200, description: 'The visitor identity', schema: visitorIdentitySchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params }) => identity.get(workspaceOf(ctx), params.agentId),
  );
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/visitor-identity', operationId: 'setVisitorIdentity', tag: 'Agents', role: 'builder',
      summary: 'Set who may chat: `anonymous` (default), `verified` (signed visitors only) or `either`; `verified` and `either` need a secret first',
      params: agentIdParam, body: setVisitorIdentitySchema,
      response: { status: 200, description: 'The visitor identity', schema: visitorIdentitySchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params, body }) => identity.setMode(workspaceOf(ctx), params.agentId, body.mode),
  );
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/visitor-identity/secret', operationId: 'rotateVisitorSecret', tag: 'Agents', role: 'builder',
      summary: 'Creates or rotates the identity secret (shown this once); the one it replaces still verifies for `graceSeconds`',
      params: agentIdParam, body: rotateVisitorSecretSchema,
      response: { status: 200, description: 'The new secret', schema: visitorSecretSchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params, body }) => identity.rotateSecret(workspaceOf(ctx), params.agentId, body.graceSeconds),
  );
}
