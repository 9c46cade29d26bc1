import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { ConversationRow } from '../db/repositories/conversations';
import {
  actingEndUser,
  agentOwner,
  conversationOwner,
  conversationOwners,
  type CredentialOwner,
  endUserOwner,
} from '../db/repositories/credentials';
import { readSupplied, storedConnection, suppliedView } from '../db/supplied';
import {
  type ConnectionStatus,
  connectionStatuses,
  type CredentialsInput,
  type Declarations,
  type Level,
  type SealedConnection,
  suppliedProblem,
} from '../domain/credentials';
import { AppError } from '../domain/errors';
import { type SecretBox, sealContext } from '../domain/secret-box';
import type { OAuthService } from './oauth';

interface CredentialsDeps {
  db: Db;
  repos: Repositories;
  box: SecretBox;
  oauth: OAuthService;
}

/**
 * Supplying secret and connection values (`bind`/`attach`), and reading what is connected.
 * Values are sealed here before they reach the repository and are never returned.
 */
export class CredentialsService {
  constructor(private readonly deps: CredentialsDeps) {}

  /** `PUT /v1/agents/:agentId/credentials`: fixed-scope values, checked against the latest version. */
  async putForAgent(workspaceId: string, agentId: string, input: CredentialsInput): Promise<void> {
    const agent = await this.latest(workspaceId, agentId);
    this.check(agent, input, 'agent', `the agent (version ${agent.version})`);
    await this.store(workspaceId, agentOwner(agentId), input);
  }

  /** `PUT /v1/conversations/:conversationId/credentials`: conversation-scope values, checked against its pinned version. */
  async putForConversation(workspaceId: string, conversationId: string, input: CredentialsInput): Promise<void> {
    const { decl, declaredBy } = await this.pinned(workspaceId, conversationId);
    this.check(decl, input, 'conversation', declaredBy);
    await this.store(workspaceId, conversationOwner(conversationId), input);
  }

  /** `GET /v1/agents/:agentId/connections`: declared by the latest version, then every other stored one. */
  async agentConnections(workspaceId: string, agentId: string): Promise<ConnectionStatus[]> {
    const agent = await this.latest(workspaceId, agentId);
    const rows = await readSupplied(this.deps.repos, agentId, []);
    return connectionStatuses(agent, rows.connections.map(storedConnection), 'agent');
  }

  /** `GET /v1/conversations/:conversationId/connections`: as the conversation sees them (its values, its end user's and its agent's). */
  async conversationConnections(workspaceId: string, conversationId: string): Promise<ConnectionStatus[]> {
    const { decl, agentId, row } = await this.pinned(workspaceId, conversationId);
    const rows = agentId
      ? await readSupplied(this.deps.repos, agentId, [row])
      : await this.deps.repos.credentials.supplied({ owners: conversationOwners(row) });
    return connectionStatuses(decl, suppliedView(rows, row).connections, 'conversation');
  }

  /**
   * `DELETE /v1/agents/:agentId/connections/:provider`: forgets the agent's value (revoking it at
   * the provider when it has a revocation endpoint); none stored is fine.
   */
  async disconnectAgent(workspaceId: string, agentId: string, provider: string): Promise<void> {
    await this.latest(workspaceId, agentId);
    await this.deps.oauth.forget(agentOwner(agentId), provider);
  }

  /** `POST /v1/agents/:agentId/authorize`: a consent URL whose tokens serve the agent (a fixed-scope connection). */
  async authorizeAgent(workspaceId: string, agentId: string, provider: string): Promise<{ url: string }> {
    const agent = await this.latest(workspaceId, agentId);
    this.check(agent, { connections: [{ provider, accessToken: '-' }] }, 'agent', `the agent (version ${agent.version})`, 'body.provider');
    const p = this.deps.oauth.provider(provider, 'agent.bind({ connections: [...] }) or agent.attach(connection)');
    return this.deps.oauth.begin({ workspaceId, owner: agentOwner(agentId), endUserId: null, provider: p });
  }

  /**
   * `POST /v1/conversations/:conversationId/authorize`: a consent URL for a conversation-scope
   * connection. The tokens go to the end user the conversation acts as (so they serve that end
   * user's later conversations too, and no one else's), else to the conversation alone: a public
   * conversation whose visitor was not verified never stores tokens for the id the visitor typed.
   */
  async authorizeConversation(workspaceId: string, conversationId: string, provider: string): Promise<{ url: string }> {
    const { decl, declaredBy, row } = await this.pinned(workspaceId, conversationId);
    this.check(decl, { connections: [{ provider, accessToken: '-' }] }, 'conversation', declaredBy, 'body.provider');
    const p = this.deps.oauth.provider(provider, 'conversation.bind({ connections: [...] }) or conversation.attach(connection)');
    const endUserId = actingEndUser(row);
    const owner = endUserId !== null ? endUserOwner(workspaceId, endUserId) : conversationOwner(conversationId);
    return this.deps.oauth.begin({ workspaceId, owner, endUserId, provider: p });
  }

  private async latest(workspaceId: string, agentId: string) {
    const found = await this.deps.repos.agents.get({ workspaceId, agentId });
    if (!('agent' in found)) throw new AppError('agent_not_found', 'no such agent');
    return found.agent;
  }

  /** The declarations of the version a conversation runs on (none for a project conversation). */
  private async pinned(
    workspaceId: string,
    conversationId: string,
  ): Promise<{ decl: Declarations; declaredBy: string; agentId?: string; row: ConversationRow }> {
    const row = await this.deps.repos.conversations.get({ workspaceId, conversationId });
    if (!row) throw new AppError('conversation_not_found', 'no such conversation');
    if (!row.agent_id || row.version === null) return { decl: { secrets: [], connections: [] }, declaredBy: 'the conversation', row };
    const found = await this.deps.repos.agents.get({ workspaceId, agentId: row.agent_id, version: row.version });
    if (!('agent' in found)) throw new AppError('conversation_not_found', 'no such conversation');
    return { decl: found.agent, declaredBy: `version ${row.version} of the agent (the conversation's)`, agentId: row.agent_id, row };
  }

  private check(decl: Declarations, input: CredentialsInput, level: Level, declaredBy: string, fieldOverride?: string): void {
    const problem = suppliedProblem(decl, input, level, declaredBy);
    if (problem) throw new AppError('invalid_request', `${fieldOverride ?? problem.field}: ${problem.problem}`);
  }

  /** Seals and stores values on `owner` (an agent, a conversation or an end user). */
  async store(workspaceId: string, owner: CredentialOwner, input: CredentialsInput): Promise<void> {
    const { box } = this.deps;
    const secrets = Object.entries(input.secrets ?? {}).map(([name, value]) => ({
      name,
      value: box.seal(value, sealContext('secret', owner.kind, owner.id, name)),
    }));
    const connections = (input.connections ?? []).map((c) => {
      const expiresAt = c.expiresAt === undefined ? null : new Date(c.expiresAt);
      const sealed: SealedConnection = {
        accessToken: c.accessToken,
        ...(c.refreshToken !== undefined ? { refreshToken: c.refreshToken } : {}),
        ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
      };
      return {
        provider: c.provider,
        value: box.seal(JSON.stringify(sealed), sealContext('connection', owner.kind, owner.id, c.provider)),
        accountLabel: c.accountLabel ?? null,
        expiresAt,
        refreshable: c.refreshToken !== undefined && this.deps.oauth.canRefresh(c.provider),
      };
    });
    if (secrets.length === 0 && connections.length === 0) return;
    await this.deps.db.transaction((trx) => this.deps.repos.credentials.put({ workspaceId, owner, secrets, connections }, trx));
  }
}
