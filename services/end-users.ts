import { type Client, WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Repositories } from '../db/repositories';
import { endUserOwner } from '../db/repositories/credentials';
import { toErasure } from '../db/repositories/end-user-erasures';
import type { AgentConversation } from '../domain/conversation';
import type { ConnectionStatus, CredentialsInput } from '../domain/credentials';
import type { EndUserExport, Erasure } from '../domain/end-user-erasure';
import { erasureWorkflowId } from '../domain/runs/end-user-erasure';
import { AppError } from '../domain/errors';
import type { UrlSigningKeys } from '../domain/signed-url';
import type { eraseEndUserWorkflow } from '../workflows/end-user-erasure';
import { WorkspaceIdKey } from '../domain/runs/search-attributes';
import type { ConversationsService } from './conversations';
import type { CredentialsService } from './credentials';
import { exportDocument } from './end-user-export';
import type { OAuthService } from './oauth';

interface EndUsersDeps {
  repos: Repositories;
  conversations: ConversationsService;
  credentials: CredentialsService;
  oauth: OAuthService;
  temporal: Client;
  /** Where erasures run (the ops task queue). */
  opsQueue: string;
  /** Signs the export's file links. */
  signingKey: UrlSigningKeys;
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

  /** `endUser.export()`: everything stored about the end user, files as links under `origin` (docs/security.md). */
  async export(workspaceId: string, endUserId: string, origin: string): Promise<EndUserExport> {
    const rows = await this.deps.repos.endUserData.rows({ workspaceId, endUserId });
    return exportDocument({ workspaceId, endUserId, rows, signingKey: this.deps.signingKey, origin });
  }

  /**
   * `endUser.erase()`: starts (or, while one runs, joins) the erasure of everything stored about
   * the end user. The workflow's input is the erasure id alone; a start that fails leaves the row
   * running, and a later DELETE starts its workflow again (same id, so never twice at once).
   */
  async erase(workspaceId: string, endUserId: string): Promise<Erasure> {
    const { row } = await this.deps.repos.endUserErasures.start({ workspaceId, endUserId });
    try {
      await this.deps.temporal.workflow.start<typeof eraseEndUserWorkflow>('eraseEndUserWorkflow', {
        workflowId: erasureWorkflowId(row.id),
        taskQueue: this.deps.opsQueue,
        args: [{ erasureId: row.id }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        typedSearchAttributes: [{ key: WorkspaceIdKey, value: workspaceId }],
      });
    } catch (e) {
      throw new AppError('temporal_unavailable', 'the erasure could not be started; ask again shortly (the same erasure goes on)', undefined, { cause: e });
    }
    return toErasure(row);
  }

  /** An erasure of this workspace, as it stands. */
  async erasure(workspaceId: string, erasureId: string): Promise<Erasure> {
    const row = await this.deps.repos.endUserErasures.get({ workspaceId, erasureId });
    if (!row) throw new AppError('erasure_not_found', 'no such erasure');
    return toErasure(row);
  }

  /** `endUser.disconnect(provider)`: forgets the end user's connection, revoking it at the provider when possible. */
  disconnect(workspaceId: string, endUserId: string, provider: string): Promise<void> {
    return this.deps.oauth.forget(endUserOwner(workspaceId, endUserId), provider);
  }
}
