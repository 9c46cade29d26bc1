import { z } from 'zod';
import { agentConversationSchema, askSchema, messageSchema, startConversationSchema, turnStateSchema } from '../../domain/conversation';
import { AppError } from '../../domain/errors';
import { projectConversationSchema } from '../../domain/project-conversation';
import { turnEventSchema } from '../../domain/turn-events';
import type { ConversationsService } from '../../services/conversations';
import type { TurnCancellation } from '../../services/turn-cancel';
import type { ApiDeps } from '../context';
import { actorOf, workspaceOf } from '../context';
import type { ConversationAccess } from '../../services/conversation-access';
import { type ApiRouter, listOf, listSchema } from '../routing';
import type { TurnEventHub } from '../sse/event-hub';
import { lastEventId, streamTurn, type TurnStreamOptions } from '../sse/turn-stream';
import { agentIdParam } from './agents';

export const conversationIdParam = z.object({ conversationId: z.string().min(1).max(100) });
const turnIdParam = z.object({ turnId: z.string().min(1).max(100) });
export const conversationList = listSchema(agentConversationSchema, { id: 'AgentConversationList' });

/** Conversations of agents, their messages, and turns streamed as Server-Sent Events. */
export function conversationRoutes(
  r: ApiRouter,
  conversations: ConversationsService,
  deps: Pick<ApiDeps, 'repos'> & { hub: TurnEventHub; stream: TurnStreamOptions; cancellation: TurnCancellation; access: ConversationAccess },
): void {
  const stream = { turns: deps.repos.turns, hub: deps.hub };
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/conversations', operationId: 'startConversation', tag: 'Conversations', role: 'builder',
      summary: 'Start a conversation pinned to a version (default: the latest), with parameter values',
      params: agentIdParam, body: startConversationSchema,
      response: { status: 201, description: 'The conversation', schema: agentConversationSchema },
      errors: ['agent_not_found', 'version_not_found', 'invalid_parameters'],
    },
    (ctx, { params, body }) => conversations.start(workspaceOf(ctx), params.agentId, body, actorOf(ctx).id),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/conversations', operationId: 'listConversations', tag: 'Conversations', role: 'reviewer',
      summary: "The agent's conversations, newest first",
      params: agentIdParam,
      response: { status: 200, description: 'The conversations', schema: conversationList },
      errors: ['agent_not_found'],
    },
    async (ctx, { params }) => listOf(await conversations.listForAgent(workspaceOf(ctx), params.agentId)),
  );
  r.add(
    {
      method: 'get', path: '/v1/conversations/:conversationId', operationId: 'getConversation', tag: 'Conversations', role: 'viewer',
      summary: 'A conversation of an agent or of a project, with `ready` and what it still `requires`',
      params: conversationIdParam,
      response: { status: 200, description: 'The conversation (`agentId` marks an agent\'s, `projectId` without `agentId` a project\'s)', schema: z.union([agentConversationSchema, projectConversationSchema]) },
      errors: ['conversation_not_found'],
    },
    async (ctx, { params }) => {
      await deps.access.conversation(actorOf(ctx), params.conversationId, 'read');
      return conversations.get(workspaceOf(ctx), params.conversationId);
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/conversations/:conversationId/messages', operationId: 'listMessages', tag: 'Conversations', role: 'viewer',
      summary: 'The messages in order',
      params: conversationIdParam,
      response: { status: 200, description: 'The messages', schema: listSchema(messageSchema, { id: 'MessageList' }) },
      errors: ['conversation_not_found'],
    },
    async (ctx, { params }) => {
      await deps.access.conversation(actorOf(ctx), params.conversationId, 'read');
      return listOf(await conversations.messages(workspaceOf(ctx), params.conversationId));
    },
  );
  r.add(
    {
      method: 'post', path: '/v1/conversations/:conversationId/end', operationId: 'endConversation', tag: 'Conversations', role: 'viewer',
      summary: 'End the conversation and cancel its running turn; later asks answer 409 conversation_ended',
      params: conversationIdParam,
      response: { status: 204, description: 'Ended' },
      errors: ['conversation_not_found'],
    },
    async (ctx, { params }) => {
      await deps.access.conversation(actorOf(ctx), params.conversationId, 'write');
      await conversations.end(workspaceOf(ctx), params.conversationId);
    },
  );
  r.add(
    {
      method: 'post', path: '/v1/conversations/:conversationId/turns', operationId: 'ask', tag: 'Conversations', role: 'viewer',
      summary: 'Send a message; the answer is the turn as Server-Sent Events (start … done | error)',
      params: conversationIdParam, body: askSchema, limit: 'streams',
      response: { status: 200, description: 'The turn, streamed', contentType: 'text/event-stream', events: turnEventSchema },
      errors: ['conversation_not_found', 'conversation_ended', 'conversation_not_ready', 'project_archived', 'insufficient_credits', 'turn_in_progress', 'file_too_large', 'storage_quota_exceeded', 'temporal_unavailable'],
    },
    async (ctx, { params, body }) => {
      await deps.access.conversation(actorOf(ctx), params.conversationId, 'write');
      const turnId = await conversations.ask(workspaceOf(ctx), params.conversationId, body, ctx.state.requestId);
      ctx.set('X-Turn-Id', turnId);
      streamTurn(ctx, stream, turnId, 0, deps.stream);
      return undefined;
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/turns/:turnId/events', operationId: 'turnEvents', tag: 'Conversations', role: 'viewer',
      summary: 'The events of a turn after `Last-Event-ID` (all of them without it), live until its end',
      params: turnIdParam, limit: 'streams',
      response: { status: 200, description: 'The turn, streamed', contentType: 'text/event-stream', events: turnEventSchema },
      errors: ['turn_not_found'],
    },
    async (ctx, { params }) => {
      const after = lastEventId(ctx);
      if (after === undefined) throw new AppError('invalid_request', 'header.last-event-id: a sequence number');
      await deps.access.turn(actorOf(ctx), params.turnId, 'read');
      const turnId = await conversations.workspaceTurn(workspaceOf(ctx), params.turnId);
      streamTurn(ctx, stream, turnId, after, deps.stream);
      return undefined;
    },
  );
  r.add(
    {
      method: 'post', path: '/v1/turns/:turnId/cancel', operationId: 'cancelTurn', tag: 'Conversations', role: 'viewer',
      summary: 'Cancel a running turn: it ends with an `error` event saying it was cancelled, debiting what it used. A turn that already ended is left as it is',
      params: turnIdParam,
      response: { status: 200, description: "The turn's state: `cancelled`, or how it had already ended", schema: turnStateSchema },
      errors: ['turn_not_found', 'temporal_unavailable'],
    },
    async (ctx, { params }) => {
      await deps.access.turn(actorOf(ctx), params.turnId, 'write');
      return deps.cancellation.cancelAndWait(workspaceOf(ctx), params.turnId);
    },
  );
}
