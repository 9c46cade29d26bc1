import type { Repositories } from '../db/repositories';
import { endUserOwner } from '../db/repositories/credentials';
import type { AgentConversation } from '../domain/conversation';
import type { ConnectionStatus, CredentialsInput } from '../domain/credentials';
import type { ConversationsService } from './conversations';
import type { CredentialsService } from './credentials';
import type { OAuthService } from './oauth';

interface EndUsersDeps {
  repos: Repositories;
  conversations: ConversationsService;
  credentials: CredentialsService;
  oauth: OAuthService;
}

/**
 * `ws.endUser(id)`: an end user of the workspace's product — the id a visitor of public chat
 * gives, or the one passed to `agent.start({ endUser })`. Nothing is created for an end user:
 * the id names their conversations and the conversation-scope values that belong to them, which
 * every conversation of that end user sees (on any agent of the workspace) and no other does.
 */
export class EndUsersService {
  constructor(private readonly deps: EndUsersDeps) {}

  conversations(workspaceId: string, endUserId: string): Promise<AgentConversation[]> {
    return this.deps.conversations.listForEndUser(workspaceId, endUserId);
  }

  /**
   * Every OAuth provider configured on this server, then every other connection stored for the
   * end user. There is no agent here, so `declared` and `required` are false; `scope` is
   * `conversation` (what end-user values serve) and `suppliedBy` `conversation` when stored.
   */
  async connections(workspaceId: string, endUserId: string): Promise<ConnectionStatus[]> {
    const stored = await this.deps.repos.credentials.supplied({ owners: [endUserOwner(workspaceId, endUserId)] });
    const providers = [...new Set([...this.deps.oauth.providerNames(), ...stored.connections.map((c) => c.provider)])];
    return providers.map((provider) => {
      const base = { provider, declared: false, required: false, scope: 'conversation' as const };
      const row = stored.connections.find((c) => c.provider === provider);
      if (!row) return { ...base, connected: false };
      const expired = row.expires_at !== null && row.expires_at.getTime() <= Date.now() && !row.refreshable;
      const error = row.error ?? (expired ? 'token expired' : undefined);
      return {
        ...base,
        connected: error === undefined,
        suppliedBy: 'conversation' as const,
        ...(row.account_label !== null ? { accountLabel: row.account_label } : {}),
        ...(error !== undefined ? { error } : {}),
      };
    });
  }

  /** `endUser.bind`/`attach`: values that serve every conversation of the end user (any name: no agent declares them here). */
  put(workspaceId: string, endUserId: string, input: CredentialsInput): Promise<void> {
    return this.deps.credentials.store(workspaceId, endUserOwner(workspaceId, endUserId), input);
  }

  /** `endUser.authorize(provider)`: a consent URL whose tokens belong to the end user. */
  authorize(workspaceId: string, endUserId: string, provider: string): Promise<{ url: string }> {
    const p = this.deps.oauth.provider(provider, 'endUser.attach(connection)');
    return this.deps.oauth.begin({ workspaceId, owner: endUserOwner(workspaceId, endUserId), endUserId, provider: p });
  }

  /** `endUser.disconnect(provider)`: forgets the end user's connection, revoking it at the provider when possible. */
  disconnect(workspaceId: string, endUserId: string, provider: string): Promise<void> {
    return this.deps.oauth.forget(endUserOwner(workspaceId, endUserId), provider);
  }
}
