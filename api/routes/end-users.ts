import { z } from 'zod';
import { authorizeBodySchema, credentialsBodySchema } from '../../domain/credentials';
import { endUserExportSchema, erasureSchema } from '../../domain/end-user-erasure';
import type { EndUsersService } from '../../services/end-users';
import { workspaceOf } from '../context';
import { type ApiRouter, listOf } from '../routing';
import { linkOrigin } from './conversation-files';
import { conversationList } from './conversations';
import { authorizeAnswer, statusList } from './credentials';

// eslint-disable-next-line no-control-regex
const controlChars = /[\u0000-\u001f\u007f]/;
/** The product's own id of its user (what public chat's `user.id` and `agent.start({ endUser })` carry). */
const endUserParam = z.object({
  endUserId: z.string().min(1).max(200).refine((v) => !controlChars.test(v) && v.trim() !== '', 'must be non-empty text without control characters'),
});
const providerParams = endUserParam.extend({ provider: z.string().min(1).max(64) });
const erasureParam = z.object({ erasureId: z.string().min(1).max(100) });

/** `ws.endUser(id)`: an end user's conversations and the conversation-scope values that belong to them. */
export function endUserRoutes(r: ApiRouter, endUsers: EndUsersService, publicBaseURL: string | undefined): void {
  // Not under /v1/end-users/: an end user may be called `erasures` (ids are the product's own).
  r.add(
    {
      method: 'get', path: '/v1/erasures/:erasureId', operationId: 'getErasure', tag: 'End users', role: 'owner',
      summary: 'An erasure as it stands: `running` with the counts so far, then `done`',
      params: erasureParam,
      response: { status: 200, description: 'The erasure', schema: erasureSchema },
      errors: ['erasure_not_found'],
    },
    (ctx, { params }) => endUsers.erasure(workspaceOf(ctx), params.erasureId),
  );
  r.add(
    {
      method: 'get', path: '/v1/end-users/:endUserId/export', operationId: 'exportEndUser', tag: 'End users', role: 'owner',
      summary: 'Everything stored about the end user as one JSON document: conversations with messages and turn events, files as signed links, secret and connection names (never values), approvals',
      params: endUserParam,
      response: { status: 200, description: 'The export', schema: endUserExportSchema },
    },
    (ctx, { params }) => endUsers.export(workspaceOf(ctx), params.endUserId, linkOrigin(ctx, publicBaseURL)),
  );
  r.add(
    {
      method: 'delete', path: '/v1/end-users/:endUserId', operationId: 'eraseEndUser', tag: 'End users', role: 'owner',
      summary:
        "Erase everything stored about the end user (conversations, messages, turn events and the turns' workflow histories, files, stored values, consent links, approvals) in a durable workflow; while one runs, the same erasure is answered. Follow it with getErasure",
      params: endUserParam,
      response: { status: 202, description: 'The erasure, `running` (or already `done`)', schema: erasureSchema },
      errors: ['temporal_unavailable'],
    },
    async (ctx, { params }) => {
      const erasure = await endUsers.erase(workspaceOf(ctx), params.endUserId);
      ctx.state.audit = { ...ctx.state.audit, targets: { erasureId: erasure.id } };
      return erasure;
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/end-users/:endUserId/conversations', operationId: 'listEndUserConversations', tag: 'End users', role: 'reviewer',
      summary: "The end user's conversations on every agent of the workspace (public chat and agent.start({ endUser })), newest first",
      params: endUserParam,
      response: { status: 200, description: 'The conversations', schema: conversationList },
    },
    async (ctx, { params }) => listOf(await endUsers.conversations(workspaceOf(ctx), params.endUserId)),
  );
  r.add(
    {
      method: 'get', path: '/v1/end-users/:endUserId/connections', operationId: 'listEndUserConnections', tag: 'End users', role: 'reviewer',
      summary: 'Every configured OAuth provider and every connection stored for the end user, with its status',
      params: endUserParam,
      response: { status: 200, description: 'The statuses', schema: statusList },
    },
    async (ctx, { params }) => listOf(await endUsers.connections(workspaceOf(ctx), params.endUserId)),
  );
  r.add(
    {
      method: 'put', path: '/v1/end-users/:endUserId/credentials', operationId: 'putEndUserCredentials', tag: 'End users', role: 'builder',
      summary: "Supply secret and connection values that serve every conversation of the end user; given names replace, others stay",
      params: endUserParam, body: credentialsBodySchema,
      response: { status: 204, description: 'Stored (encrypted)' },
    },
    (ctx, { params, body }) => endUsers.put(workspaceOf(ctx), params.endUserId, body),
  );
  r.add(
    {
      method: 'post', path: '/v1/end-users/:endUserId/authorize', operationId: 'authorizeEndUser', tag: 'End users', role: 'builder',
      summary: 'An OAuth consent URL whose tokens belong to the end user (serving all their conversations)',
      params: endUserParam, body: authorizeBodySchema,
      response: { status: 200, description: 'The consent URL', schema: authorizeAnswer },
      errors: ['oauth_not_configured'],
    },
    (ctx, { params, body }) => endUsers.authorize(workspaceOf(ctx), params.endUserId, body.provider),
  );
  r.add(
    {
      method: 'delete', path: '/v1/end-users/:endUserId/connections/:provider', operationId: 'disconnectEndUser', tag: 'End users', role: 'builder',
      summary: "Forget the end user's connection, revoking it at the provider when a revocation URL is configured (204 also when none was stored)",
      params: providerParams,
      response: { status: 204, description: 'Removed' },
    },
    (ctx, { params }) => endUsers.disconnect(workspaceOf(ctx), params.endUserId, params.provider),
  );
}
