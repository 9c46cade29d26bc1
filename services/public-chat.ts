import type { Repositories } from '../db/repositories';
import { bearerToken } from '../domain/bearer';
import type { PublicSessionKey, SessionVisitor } from '../db/repositories/conversations';
import type { ServedAgent } from '../db/repositories/deployments';
import type { Message } from '../domain/conversation';
import { AppError, RateLimitRefusal } from '../domain/errors';
import { hashPublicToken } from '../domain/public-token';
import { type PublicAgent, publicTokenPattern } from '../domain/publishing';
import type { TurnEvent } from '../domain/turn-events';
import { VISITOR_BUSY, visitorRefusal } from '../domain/visitor-events';
import type { ConversationsService } from './conversations';
import type { SessionIdentity } from './visitor-identity';

/** A public ask either streams a turn or is refused with the one `error` event a visitor is shown (domain/visitor-events.ts). */
type PublicAsk = { turnId: string; conversationId: string } | { refused: Extract<TurnEvent, { type: 'error' }> };

const notDeployed = () => new AppError('agent_not_found', 'no such deployed agent');

/**
 * Public traffic to deployed agents: metadata, chat by (agent, visitor) sessions, history and
 * resuming. A visitor is who the route resolved (services/visitor-identity.ts): an anonymous id
 * selects a conversation and grants nothing else; a verified one has sessions of its own, which
 * act as that end user.
 */
export class PublicChatService {
  constructor(private readonly deps: { repos: Repositories; conversations: ConversationsService }) {}

  /** The deployed agent a `Bearer agt_pk_…` header names; 401 otherwise. */
  async byBearer(header: string | undefined): Promise<ServedAgent> {
    if (!header) throw new AppError('missing_public_token', 'send the agent\'s publishable token as `Authorization: Bearer agt_pk_…`');
    const token = bearerToken(header);
    if (!token || !publicTokenPattern.test(token)) throw new AppError('invalid_public_token', 'the publishable token is malformed');
    const served = await this.deps.repos.deployments.servedByToken({ tokenHash: hashPublicToken(token) });
    if (!served) throw new AppError('invalid_public_token', 'the publishable token is unknown, rotated, or its agent is not deployed');
    return served;
  }

  async agentByToken(token: string): Promise<{ agentId: string; name: string }> {
    if (!publicTokenPattern.test(token)) throw notDeployed();
    const served = await this.deps.repos.deployments.servedByToken({ tokenHash: hashPublicToken(token) });
    if (!served) throw notDeployed();
    return { agentId: served.agentId, name: served.config.name };
  }

  async publicAgent(agentId: string): Promise<PublicAgent> {
    const served = await this.deps.repos.deployments.servedById({ agentId });
    if (!served) throw notDeployed();
    return describe(served);
  }

  /** Opens (or continues) the visitor's conversation on the served version and starts the turn. */
  async ask(served: ServedAgent, input: { content: string; user: SessionIdentity }, requestId?: string): Promise<PublicAsk> {
    const conversation = await this.deps.repos.conversations.openSession({
      workspaceId: served.workspaceId,
      key: sessionKey(served),
      version: served.version,
      user: input.user,
    });
    // A public conversation follows production: after a promotion or rollback it goes on there.
    if (conversation.version !== served.version) await this.deps.repos.conversations.repin({ conversationId: conversation.id, version: served.version });
    try {
      const turnId = await this.deps.conversations.ask(served.workspaceId, conversation.id, { text: input.content }, requestId);
      return { turnId, conversationId: conversation.id };
    } catch (err) {
      // The owner's reasons (an agent id, a cap, a balance, a count of running turns) are not the visitor's.
      if (err instanceof AppError && (err.code === 'insufficient_credits' || err.code === 'conversation_not_ready')) {
        return { refused: visitorRefusal(err.code === 'insufficient_credits') };
      }
      if (err instanceof RateLimitRefusal && err.limit === 'workspace-running-turns') {
        throw new RateLimitRefusal(err.limit, VISITOR_BUSY, err.retryAfter ?? 1, err.holdMs);
      }
      throw err;
    }
  }

  /** The visitor's conversation so far, and the turn still running in it (to follow after a reload). */
  async history(served: ServedAgent, visitor: SessionVisitor): Promise<{ data: Message[]; runningTurnId: string | null }> {
    const conversation = await this.deps.repos.conversations.findSession({ key: sessionKey(served), visitor });
    if (!conversation) return { data: [], runningTurnId: null };
    const [data, running] = await Promise.all([
      this.deps.repos.conversations.messages({ conversationId: conversation.id }),
      this.deps.repos.turns.running({ conversationId: conversation.id }),
    ]);
    return { data, runningTurnId: running?.id ?? null };
  }

  /** The visitor's own conversation (on the served agent), if they have one: what their approvals are scoped to. */
  async visitorConversationId(served: ServedAgent, visitor: SessionVisitor): Promise<string | undefined> {
    return (await this.deps.repos.conversations.findSession({ key: sessionKey(served), visitor }))?.id;
  }

  /** A turn of the visitor's own conversation, for resuming; anything else is turn_not_found. */
  async visitorTurn(served: ServedAgent, visitor: SessionVisitor, turnId: string): Promise<string> {
    const conversation = await this.deps.repos.conversations.findSession({ key: sessionKey(served), visitor });
    const turn = conversation ? await this.deps.repos.turns.get({ turnId, workspaceId: served.workspaceId }) : undefined;
    if (!turn || turn.conversation_id !== conversation?.id) throw new AppError('turn_not_found', 'no such turn in this visitor\'s conversation');
    return turn.id;
  }
}

function describe(served: ServedAgent): PublicAgent {
  return { agentId: served.agentId, name: served.config.name, greeting: served.config.greeting ?? null };
}

function sessionKey(served: ServedAgent): PublicSessionKey {
  return served.testDeploymentId
    ? { channel: 'test', agentId: served.agentId, testDeploymentId: served.testDeploymentId }
    : { channel: 'public', agentId: served.agentId };
}
