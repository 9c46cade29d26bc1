import type { Config } from '../config/env';
import { secretBoxFromConfig } from '../config/secret-box';
import type { Repositories } from '../db/repositories';
import { agentOwner, conversationOwner } from '../db/repositories/credentials';
import type { ConnectionValue, CredentialSource, Credentials, Level, SealedConnection } from '../domain/credentials';
import { type SecretBox, sealContext } from '../domain/secret-box';

/** Fixed-scope values come from the agent, conversation-scope values from the conversation. */
const levelOrder: Record<Level, number> = { agent: 0, conversation: 1 };

/**
 * The `CredentialSource` tool activities call at call time: every value stored on the agent and
 * on the conversation, decrypted; a conversation value wins over an agent value of the same
 * name. A value that cannot be decrypted (another SECRETS_KEY, altered) throws a
 * `SecretBoxError` saying so. Values are sealed by the credentials service (services/credentials.ts).
 */
export function createCredentialSource(deps: { repos: Pick<Repositories, 'credentials'>; box: SecretBox }): CredentialSource {
  return {
    async load({ workspaceId, agentId, conversationId }): Promise<Credentials> {
      const rows = await deps.repos.credentials.values({ workspaceId, owners: [agentOwner(agentId), conversationOwner(conversationId)] });
      const out: Credentials = { secrets: {}, connections: {} };
      const secrets = [...rows.secrets].sort((a, b) => levelOrder[a.owner_kind] - levelOrder[b.owner_kind]);
      for (const row of secrets) {
        out.secrets[row.name] = deps.box.open(row.value, sealContext('secret', row.owner_kind, row.owner_id, row.name));
      }
      const connections = [...rows.connections].sort((a, b) => levelOrder[a.owner_kind] - levelOrder[b.owner_kind]);
      for (const row of connections) {
        const sealed = JSON.parse(deps.box.open(row.value, sealContext('connection', row.owner_kind, row.owner_id, row.provider))) as SealedConnection;
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
export function credentialSourceFromConfig(config: Pick<Config, 'SECRETS_KEY'>, repos: Pick<Repositories, 'credentials'>): CredentialSource {
  return createCredentialSource({ repos, box: secretBoxFromConfig(config) });
}
