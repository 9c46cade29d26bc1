import type { Knex } from 'knex';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import { agentOwner, type ConnectionMeta, conversationOwner, type CredentialOwner, type Supplied } from '../db/repositories/credentials';
import {
  type ConnectionStatus,
  connectionStatuses,
  type CredentialsInput,
  type Declarations,
  type Level,
  type SealedConnection,
  type StoredConnection,
  type SuppliedView,
  suppliedProblem,
} from '../domain/credentials';
import { AppError } from '../domain/errors';
import { type SecretBox, sealContext } from '../domain/secret-box';

function storedConnection(row: ConnectionMeta): StoredConnection {
  return {
    level: row.owner_kind,
    provider: row.provider,
    ...(row.account_label !== null ? { accountLabel: row.account_label } : {}),
    ...(row.expires_at !== null ? { expiresAt: row.expires_at } : {}),
  };
}

/** What is stored for a conversation and its agent, from the rows of both owners. */
export function suppliedView(rows: Supplied, conversationId?: string): SuppliedView {
  const mine = (r: { owner_kind: Level; owner_id: string }) => r.owner_kind === 'agent' || r.owner_id === conversationId;
  return {
    secrets: rows.secrets.filter(mine).map((r) => ({ level: r.owner_kind, name: r.name })),
    connections: rows.connections.filter(mine).map(storedConnection),
  };
}

/**
 * Names and connection metadata of an agent and some of its conversations, in one read: the
 * input of `missingRequirements` for each conversation (`suppliedView(rows, conversationId)`).
 */
export function readSupplied(repos: Repositories, agentId: string, conversationIds: string[], trx?: Knex.Transaction): Promise<Supplied> {
  return repos.credentials.supplied({ owners: [agentOwner(agentId), ...conversationIds.map(conversationOwner)] }, trx);
}

interface CredentialsDeps {
  db: Db;
  repos: Repositories;
  box: SecretBox;
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

  /** `GET /v1/conversations/:conversationId/connections`: as the conversation sees them (its values and its agent's). */
  async conversationConnections(workspaceId: string, conversationId: string): Promise<ConnectionStatus[]> {
    const { decl, agentId } = await this.pinned(workspaceId, conversationId);
    const rows = agentId
      ? await readSupplied(this.deps.repos, agentId, [conversationId])
      : await this.deps.repos.credentials.supplied({ owners: [conversationOwner(conversationId)] });
    return connectionStatuses(decl, suppliedView(rows, conversationId).connections, 'conversation');
  }

  /** `DELETE /v1/agents/:agentId/connections/:provider`: removes the agent's value; none stored is fine. */
  async disconnectAgent(workspaceId: string, agentId: string, provider: string): Promise<void> {
    await this.latest(workspaceId, agentId);
    await this.deps.repos.credentials.deleteConnection({ owner: agentOwner(agentId), provider });
  }

  /**
   * `POST /v1/agents/:agentId/authorize`. There is no OAuth client set-up on this server, so
   * after the usual checks the answer is 400 `oauth_not_configured`.
   */
  async authorizeAgent(workspaceId: string, agentId: string, provider: string): Promise<{ url: string }> {
    const agent = await this.latest(workspaceId, agentId);
    this.check(agent, { connections: [{ provider, accessToken: '-' }] }, 'agent', `the agent (version ${agent.version})`, 'body.provider');
    throw oauthNotConfigured(provider, 'agent.bind({ connections: [...] }) or agent.attach(connection)');
  }

  /** `POST /v1/conversations/:conversationId/authorize`: as `authorizeAgent`, for conversation-scope connections. */
  async authorizeConversation(workspaceId: string, conversationId: string, provider: string): Promise<{ url: string }> {
    const { decl, declaredBy } = await this.pinned(workspaceId, conversationId);
    this.check(decl, { connections: [{ provider, accessToken: '-' }] }, 'conversation', declaredBy, 'body.provider');
    throw oauthNotConfigured(provider, 'conversation.bind({ connections: [...] }) or conversation.attach(connection)');
  }

  private async latest(workspaceId: string, agentId: string) {
    const found = await this.deps.repos.agents.get({ workspaceId, agentId });
    if (!('agent' in found)) throw new AppError('agent_not_found', 'no such agent');
    return found.agent;
  }

  /** The declarations of the version a conversation runs on (none for a project conversation). */
  private async pinned(workspaceId: string, conversationId: string): Promise<{ decl: Declarations; declaredBy: string; agentId?: string }> {
    const row = await this.deps.repos.conversations.get({ workspaceId, conversationId });
    if (!row) throw new AppError('conversation_not_found', 'no such conversation');
    if (!row.agent_id || row.version === null) return { decl: { secrets: [], connections: [] }, declaredBy: 'the conversation' };
    const found = await this.deps.repos.agents.get({ workspaceId, agentId: row.agent_id, version: row.version });
    if (!('agent' in found)) throw new AppError('conversation_not_found', 'no such conversation');
    return { decl: found.agent, declaredBy: `version ${row.version} of the agent (the conversation's)`, agentId: row.agent_id };
  }

  private check(decl: Declarations, input: CredentialsInput, level: Level, declaredBy: string, fieldOverride?: string): void {
    const problem = suppliedProblem(decl, input, level, declaredBy);
    if (problem) throw new AppError('invalid_request', `${fieldOverride ?? problem.field}: ${problem.problem}`);
  }

  private async store(workspaceId: string, owner: CredentialOwner, input: CredentialsInput): Promise<void> {
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
      };
    });
    if (secrets.length === 0 && connections.length === 0) return;
    await this.deps.db.transaction((trx) => this.deps.repos.credentials.put({ workspaceId, owner, secrets, connections }, trx));
  }
}

function oauthNotConfigured(provider: string, instead: string): AppError {
  return new AppError(
    'oauth_not_configured',
    `this server has no OAuth set-up for ${JSON.stringify(provider)}, so it cannot send you to a consent page: ` +
      `obtain the tokens yourself and supply them with ${instead}`,
  );
}
