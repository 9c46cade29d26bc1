import type { Config } from '../config/env';
import { secretBoxFromConfig } from '../config/secret-box';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import { agentOwner, conversationOwners, type CredentialOwner } from '../db/repositories/credentials';
import type { ConnectionValue, Credentials } from '../domain/credentials';
import { type SecretBox, sealContext } from '../domain/secret-box';

import { createConnectionRefresher } from './oauth-refresh';

/** Fixed-scope values come from the agent; conversation-scope ones from the end user, then the conversation (which wins). */
const ownerOrder: Record<CredentialOwner['kind'], number> = { agent: 0, end_user: 1, conversation: 2 };

/** Loads the values of a conversation and its agent, decrypted (the worker's activities read them). */
export interface CredentialSource {
  load(ref: { workspaceId: string; agentId: string; conversationId: string }): Promise<Credentials>;
}

interface SourceDeps {
  db: Db;
  repos: Pick<Repositories, 'credentials' | 'conversations'>;
  box: SecretBox;
  providers: Config['oauthProviders'];
  refreshMarginSeconds: number;
}

/**
 * The `CredentialSource` tool activities call at call time: every value stored on the agent, on
 * the conversation's end user and on the conversation, decrypted; a later owner wins a name
 * clash. Connections about to expire are refreshed first (infra/oauth-refresh.ts); one whose
 * refresh was refused is left out. A value that cannot be decrypted (another SECRETS_KEY,
 * altered) throws a `SecretBoxError` saying so. Values are sealed by the credentials service.
 */
export function createCredentialSource(deps: SourceDeps): CredentialSource {
  const fresh = createConnectionRefresher({ ...deps, marginSeconds: deps.refreshMarginSeconds });
  return {
    async load({ workspaceId, agentId, conversationId }): Promise<Credentials> {
      const conversation = conversationId ? await deps.repos.conversations.get({ workspaceId, conversationId }) : undefined;
      const owners = [agentOwner(agentId), ...(conversation ? conversationOwners(conversation) : [])];
      const rows = await deps.repos.credentials.values({ workspaceId, owners });
      const out: Credentials = { secrets: {}, connections: {} };
      const secrets = [...rows.secrets].sort((a, b) => ownerOrder[a.owner_kind] - ownerOrder[b.owner_kind]);
      for (const row of secrets) {
        out.secrets[row.name] = deps.box.open(row.value, sealContext('secret', row.owner_kind, row.owner_id, row.name));
      }
      const connections = [...rows.connections].sort((a, b) => ownerOrder[a.owner_kind] - ownerOrder[b.owner_kind]);
      for (const row of connections) {
        const sealed = await fresh(row);
        if (!sealed) continue;
        const value: ConnectionValue = {
          accessToken: sealed.accessToken,
          ...(sealed.refreshToken !== undefined ? { refreshToken: sealed.refreshToken } : {}),
          ...(sealed.expiresAt !== undefined ? { expiresAt: sealed.expiresAt } : {}),
          ...(row.account_label !== null ? { accountLabel: row.account_label } : {}),
        };
        out.connections[row.provider] = value;
      }
      return out;
    },
  };
}

/** The credential source from configuration, for the worker's activity dependencies. */
export function credentialSourceFromConfig(
  config: Pick<Config, 'SECRETS_KEY' | 'oauthProviders' | 'OAUTH_REFRESH_MARGIN_SECONDS'>,
  db: Db,
  repos: Pick<Repositories, 'credentials' | 'conversations'>,
): CredentialSource {
  return createCredentialSource({
    db,
    repos,
    box: secretBoxFromConfig(config),
    providers: config.oauthProviders,
    refreshMarginSeconds: config.OAUTH_REFRESH_MARGIN_SECONDS,
  });
}
