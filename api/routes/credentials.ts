import { z } from 'zod';
import { authorizeBodySchema, connectionStatusSchema, credentialsBodySchema } from '../../domain/credentials';
import type { CredentialsService } from '../../services/credentials';
import { workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';
import { agentIdParam } from './agents';
import { conversationIdParam } from './conversations';

const providerParams = agentIdParam.extend({ provider: z.string().min(1).max(64) });
export const statusList = listSchema(connectionStatusSchema, { id: 'ConnectionStatusList' });
export const authorizeAnswer = z.object({ url: z.string() }).strict().meta({ id: 'AuthorizeUrl' });

/**
 * Secret and connection values (`bind`/`attach`) and connection statuses. Values go in and are
 * never answered: every route here answers 204 or statuses.
 */
export function credentialRoutes(r: ApiRouter, credentials: CredentialsService): void {
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/credentials', operationId: 'putAgentCredentials', tag: 'Credentials', role: 'builder',
      summary: "Supply fixed-scope secret and connection values declared by the agent's latest version; given names replace, others stay",
      params: agentIdParam, body: credentialsBodySchema,
      response: { status: 204, description: 'Stored (encrypted)' },
      errors: ['agent_not_found'],
    },
    (ctx, { params, body }) => credentials.putForAgent(workspaceOf(ctx), params.agentId, body),
  );
  r.add(
    {
      method: 'put', path: '/v1/conversations/:conversationId/credentials', operationId: 'putConversationCredentials', tag: 'Credentials', role: 'builder',
      summary: "Supply conversation-scope secret and connection values declared by the conversation's version; given names replace, others stay",
      params: conversationIdParam, body: credentialsBodySchema,
      response: { status: 204, description: 'Stored (encrypted)' },
      errors: ['conversation_not_found'],
    },
    (ctx, { params, body }) => credentials.putForConversation(workspaceOf(ctx), params.conversationId, body),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/connections', operationId: 'listAgentConnections', tag: 'Credentials', role: 'reviewer',
      summary: 'The status of every connection the latest version declares, then of every other one stored on the agent',
      params: agentIdParam,
      response: { status: 200, description: 'The statuses', schema: statusList },
      errors: ['agent_not_found'],
    },
    async (ctx, { params }) => listOf(await credentials.agentConnections(workspaceOf(ctx), params.agentId)),
  );
  r.add(
    {
      method: 'delete', path: '/v1/agents/:agentId/connections/:provider', operationId: 'disconnectAgent', tag: 'Credentials', role: 'builder',
      summary: "Forget the agent's value of a connection, revoking it at the provider when a revocation URL is configured (204 also when none was stored)",
      params: providerParams,
      response: { status: 204, description: 'Removed' },
      errors: ['agent_not_found'],
    },
    (ctx, { params }) => credentials.disconnectAgent(workspaceOf(ctx), params.agentId, params.provider),
  );
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/authorize', operationId: 'authorizeAgent', tag: 'Credentials', role: 'builder',
      summary: 'An OAuth consent URL (authorization code + PKCE) for a fixed-scope connection; 400 oauth_not_configured when no provider of that name is configured',
      params: agentIdParam, body: authorizeBodySchema,
      response: { status: 200, description: 'The consent URL', schema: authorizeAnswer },
      errors: ['agent_not_found', 'oauth_not_configured'],
    },
    (ctx, { params, body }) => credentials.authorizeAgent(workspaceOf(ctx), params.agentId, body.provider),
  );
  r.add(
    {
      method: 'get', path: '/v1/conversations/:conversationId/connections', operationId: 'listConversationConnections', tag: 'Credentials', role: 'reviewer',
      summary: "The status of every connection the conversation's version declares, as the conversation sees them (its values and its agent's)",
      params: conversationIdParam,
      response: { status: 200, description: 'The statuses', schema: statusList },
      errors: ['conversation_not_found'],
    },
    async (ctx, { params }) => listOf(await credentials.conversationConnections(workspaceOf(ctx), params.conversationId)),
  );
  r.add(
    {
      method: 'post', path: '/v1/conversations/:conversationId/authorize', operationId: 'authorizeConversation', tag: 'Credentials', role: 'builder',
      summary: 'An OAuth consent URL for a conversation-scope connection; the tokens go to the conversation\'s end user when it has one, else to the conversation',
      params: conversationIdParam, body: authorizeBodySchema,
      response: { status: 200, description: 'The consent URL', schema: authorizeAnswer },
      errors: ['conversation_not_found', 'oauth_not_configured'],
    },
    (ctx, { params, body }) => credentials.authorizeConversation(workspaceOf(ctx), params.conversationId, body.provider),
  );
}
