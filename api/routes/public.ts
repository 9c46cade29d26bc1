import { z } from 'zod';
import { bearerToken } from '../../domain/bearer';
import type { ServedAgent } from '../../db/repositories/deployments';
import { messageSchema } from '../../domain/conversation';
import { agentByTokenSchema, publicAgentSchema, publicChatBodySchema, publicVisitorQuerySchema, VISITOR_TOKEN_HEADER, visitorTokenSchema } from '../../domain/publishing';
import type { ApprovalsService } from '../../services/approvals';
import type { PublicChatService } from '../../services/public-chat';
import type { SessionIdentity, VisitorIdentityService } from '../../services/visitor-identity';
import type { ApiContext } from '../context';
import type { PublicOrigins } from '../public-origins';
import { type AuthFailures, digest, type Limits } from '../limits';
import { type ApiRouter, listSchema } from '../routing';
import type { TurnEventHub } from '../sse/event-hub';
import { lastEventId, streamOnly, streamTurn, type TurnStreamOptions } from '../sse/turn-stream';
import type { TurnsRepository } from '../../db/turns/repository';
import { AppError } from '../../domain/errors';
import { turnEventSchema } from '../../domain/turn-events';
import { approvalIdParam, approvalSchema, publicApprovalDecisionSchema } from '../../domain/approvals';

const agentIdParam = z.object({ agentId: z.string().min(1).max(100) });
const tokenParam = z.object({ token: z.string().min(1).max(200) });
const turnIdParam = z.object({ turnId: z.string().min(1).max(100) });
/** EventSource-style clients may send the resume point as `?lastEventId=` instead of the header. */
const eventsQuery = publicVisitorQuerySchema.extend({ lastEventId: z.string().regex(/^\d{1,9}$/, 'a sequence number').optional() });

const historySchema = listSchema(
  messageSchema,
  { id: 'PublicHistory', description: "The visitor's conversation so far; `runningTurnId` is a turn still streaming (follow it with the events route)." },
  { runningTurnId: z.string().nullable() },
);

interface PublicRouteDeps {
  chat: PublicChatService;
  approvals: ApprovalsService;
  identity: VisitorIdentityService;
  limits: Pick<Limits, 'publicChat' | 'failures'>;
  origins: PublicOrigins;
  turns: TurnsRepository;
  hub: TurnEventHub;
  stream: TurnStreamOptions;
}

/** A publishable token as limits/auth-failures.ts names it (a digest: tokens are credentials). */
const presentedToken = (token: string) => `token:${digest(token)}`;

/**
 * A lookup of `token` for the client at `address`: refused from memory once the address has failed
 * too often (limits/auth-failures.ts) unless the token was found lately, counted as a failure when
 * it answers `unknown`, and remembered as found when it answers.
 */
async function lookupToken<T>(
  failures: AuthFailures,
  address: string,
  token: string,
  unknown: 'invalid_public_token' | 'agent_not_found',
  lookup: () => Promise<T>,
): Promise<T> {
  const presented = presentedToken(token);
  await failures.check(address, presented);
  try {
    const found = await lookup();
    failures.found(presented);
    return found;
  } catch (err) {
    if (err instanceof AppError && err.code === unknown) failures.failed(address, presented);
    throw err;
  }
}

/**
 * The routes anonymous visitors reach (no API key; CORS open: see middleware/public-cors.ts).
 * Chat, history and resuming authenticate with the agent's publishable token — or, on a test
 * deployment's host, with the host itself (the test URL is the owner's capability).
 */
export function publicRoutes(r: ApiRouter, deps: PublicRouteDeps): void {
  const { chat, limits } = deps;
  const { failures } = limits;
  const byBearerOrHost = (ctx: ApiContext): Promise<ServedAgent> =>
    ctx.state.site?.testDeploymentId
      ? Promise.resolve(ctx.state.site)
      : lookupToken(failures, ctx.ip, bearerToken(ctx.get('authorization')) ?? '', 'invalid_public_token', () => chat.byBearer(ctx.get('authorization') || undefined));
  /** The agent a visitor's request is for, once its Origin is one the agent allows (public-origins.ts). */
  const served = async (ctx: ApiContext): Promise<ServedAgent> => {
    const agent = await byBearerOrHost(ctx);
    await deps.origins.admit(ctx, agent);
    return agent;
  };
  const publicAuth = ['missing_public_token', 'invalid_public_token', 'origin_not_allowed', 'rate_limited', 'invalid_visitor_token', 'visitor_token_required'] as const;
  /** The visitor of a history, resume or decision request: its `userId`, verified by the `X-Visitor-Token` header when sent. */
  const queryVisitor = (ctx: ApiContext, agent: ServedAgent, userId: string): Promise<SessionIdentity> => {
    const header = ctx.get(VISITOR_TOKEN_HEADER);
    const token = header === '' ? undefined : visitorTokenSchema.safeParse(header);
    if (token && !token.success) throw new AppError('invalid_request', `header.${VISITOR_TOKEN_HEADER}: ${token.error.issues[0]?.message ?? 'invalid'}`);
    return deps.identity.resolve(agent.agentId, { id: userId, token: token?.data }, `the ${VISITOR_TOKEN_HEADER} header`);
  };

  r.add(
    {
      method: 'get', path: '/v1/public/agents/by-token/:token', operationId: 'publicAgentByToken', tag: 'Public', auth: 'none',
      summary: 'The deployed agent a publishable token names (used by embeds to find their page)',
      params: tokenParam, limit: 'public-reads',
      response: { status: 200, description: 'The agent', schema: agentByTokenSchema },
      errors: ['agent_not_found', 'rate_limited'],
    },
    async (ctx, { params }) => {
      return lookupToken(failures, ctx.ip, params.token, 'agent_not_found', () => chat.agentByToken(params.token));
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/public/agents/:agentId', operationId: 'publicAgent', tag: 'Public', auth: 'none',
      summary: 'Public metadata of an agent deployed to production (404 otherwise)',
      params: agentIdParam, limit: 'public-reads',
      response: { status: 200, description: 'The agent', schema: publicAgentSchema },
      errors: ['agent_not_found', 'rate_limited'],
    },
    async (ctx, { params }) => {
      // The embed reads the list here to refuse to boot elsewhere; CORS stays `*` so it can.
      const [agent, allowedOrigins] = await Promise.all([chat.publicAgent(params.agentId), deps.origins.of(params.agentId)]);
      return { ...agent, allowedOrigins };
    },
  );
  r.add(
    {
      method: 'post', path: '/v1/public/chat', operationId: 'publicChat', tag: 'Public', auth: 'none',
      summary: "A visitor's message; the answer is the turn as Server-Sent Events. One conversation per (agent, user.id, verified or not)",
      body: publicChatBodySchema,
      response: { status: 200, description: 'The turn, streamed (an empty balance: a single `error` event)', contentType: 'text/event-stream', events: turnEventSchema },
      errors: [...publicAuth, 'turn_in_progress', 'temporal_unavailable'],
    },
    async (ctx, { body }) => {
      const agent = await served(ctx);
      await limits.publicChat({ agentId: agent.agentId, userId: body.user.id, address: ctx.ip });
      const user = await deps.identity.resolve(agent.agentId, body.user, 'body.user.token');
      const asked = await chat.ask(agent, { content: body.content, user }, ctx.state.requestId);
      if ('refused' in asked) {
        streamOnly(ctx, asked.refused);
        return undefined;
      }
      ctx.set('X-Turn-Id', asked.turnId);
      ctx.set('X-Conversation-Id', asked.conversationId);
      streamTurn(ctx, { turns: deps.turns, hub: deps.hub }, asked.turnId, 0, deps.stream, 'visitor');
      return undefined;
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/public/chat/messages', operationId: 'publicHistory', tag: 'Public', auth: 'none',
      summary: "The visitor's conversation so far (`?userId=`; a verified visitor's with the `X-Visitor-Token` header), and its running turn",
      query: publicVisitorQuerySchema, limit: 'public-reads',
      response: { status: 200, description: 'The messages', schema: historySchema },
      errors: [...publicAuth],
    },
    async (ctx, { query }) => {
      const agent = await served(ctx);
      return chat.history(agent, await queryVisitor(ctx, agent, query.userId));
    },
  );
  r.add(
    {
      method: 'post', path: '/v1/public/approvals/:approvalId', operationId: 'publicDecideApproval', tag: 'Public', auth: 'none',
      summary: "The visitor approves or denies a tool call of their own conversation (`userId`, and `X-Visitor-Token` for a verified one); only when the agent's `approvals` is `visitor`",
      params: approvalIdParam, body: publicApprovalDecisionSchema, limit: 'public-reads',
      response: { status: 200, description: 'The approval as decided', schema: approvalSchema },
      errors: [...publicAuth, 'approval_not_found', 'approval_decided', 'temporal_unavailable'],
    },
    async (ctx, { params, body: { userId, ...decision } }) => {
      const agent = await served(ctx);
      // Scoped to the visitor's own conversation and to approvals its agent lets visitors decide:
      // anything else (another visitor's, an id typed in, `approvals: workspace`) is not found.
      const conversationId = await chat.visitorConversationId(agent, await queryVisitor(ctx, agent, userId));
      if (conversationId === undefined) throw new AppError('approval_not_found', 'no such approval in this visitor\'s conversation');
      return deps.approvals.decide({ visitorConversationId: conversationId }, params.approvalId, decision);
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/public/turns/:turnId/events', operationId: 'publicTurnEvents', tag: 'Public', auth: 'none',
      summary: "A turn of the visitor's conversation (`?userId=`, and `X-Visitor-Token` for a verified one) after `Last-Event-ID`, live until its end",
      params: turnIdParam, query: eventsQuery, limit: 'public-reads',
      response: { status: 200, description: 'The turn, streamed', contentType: 'text/event-stream', events: turnEventSchema },
      errors: [...publicAuth, 'turn_not_found'],
    },
    async (ctx, { params, query }) => {
      const after = lastEventId(ctx);
      if (after === undefined) throw new AppError('invalid_request', 'header.last-event-id: a sequence number');
      const agent = await served(ctx);
      const turnId = await chat.visitorTurn(agent, await queryVisitor(ctx, agent, query.userId), params.turnId);
      streamTurn(ctx, { turns: deps.turns, hub: deps.hub }, turnId, after, deps.stream, 'visitor');
      return undefined;
    },
  );
}
