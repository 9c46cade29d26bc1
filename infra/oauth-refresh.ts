import type { OAuthProvider } from '../config/oauth-providers';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { ConnectionMeta, CredentialOwner } from '../db/repositories/credentials';
import type { SealedConnection } from '../domain/credentials';
import { type SecretBox, sealContext } from '../domain/secret-box';
import { OAuthGrantRefused, refreshTokens } from './oauth-client';

/** A stored connection row with its sealed value. */
type SealedRow = ConnectionMeta & { value: Buffer };

export interface RefreshDeps {
  db: Db;
  repos: Pick<Repositories, 'credentials'>;
  box: SecretBox;
  providers: Record<string, OAuthProvider>;
  /** A token expiring within this many seconds is refreshed first. */
  marginSeconds: number;
  now?: () => number;
}

/**
 * Fresh tokens for the tool calls of a turn. Runs inside the tool-call activity, so a refresh that
 * fails for a passing reason (network, provider 5xx) fails the activity and Temporal retries it.
 *
 * Policy: a refreshable connection whose access token expires within `marginSeconds` is refreshed
 * before it is handed out, under a row lock (`select … for update`): a second turn needing the
 * same connection waits for the lock, then finds the new token and uses it without a second
 * refresh. A refresh the provider refuses for good (`invalid_grant`: the grant was revoked or the
 * refresh token expired) marks the connection with an error — `connections()` then reports it as
 * not connected, with that error — and the token is not handed out.
 */
export function createConnectionRefresher(deps: RefreshDeps): (row: SealedRow) => Promise<SealedConnection | undefined> {
  const now = deps.now ?? Date.now;
  const owner = (row: SealedRow): CredentialOwner => ({ kind: row.owner_kind, id: row.owner_id });
  const open = (row: SealedRow): SealedConnection =>
    JSON.parse(deps.box.open(row.value, sealContext('connection', row.owner_kind, row.owner_id, row.provider))) as SealedConnection;
  const due = (row: SealedRow) => row.expires_at !== null && row.expires_at.getTime() - now() < deps.marginSeconds * 1000;

  return async (row) => {
    if (row.error !== null) return undefined;
    if (!row.refreshable || !due(row)) return open(row);
    return deps.db.transaction(async (trx) => {
      const locked = (await deps.repos.credentials.lockConnection({ owner: owner(row), provider: row.provider }, trx)) as SealedRow | undefined;
      if (!locked || locked.error !== null) return undefined;
      // Another turn refreshed it while this one waited for the lock.
      if (!due(locked)) return open(locked);
      const current = open(locked);
      const provider = Object.hasOwn(deps.providers, row.provider) ? deps.providers[row.provider] : undefined;
      const fail = async (error: string) => {
        await deps.repos.credentials.failed({ owner: owner(row), provider: row.provider, error }, trx);
        return undefined;
      };
      if (!provider || current.refreshToken === undefined) return fail('the token expired and this server has no OAuth provider configured to refresh it');
      try {
        const tokens = await refreshTokens(provider, current.refreshToken);
        await deps.repos.credentials.refreshed(
          {
            owner: owner(row),
            provider: row.provider,
            value: deps.box.seal(JSON.stringify(tokens), sealContext('connection', row.owner_kind, row.owner_id, row.provider)),
            expiresAt: tokens.expiresAt !== undefined ? new Date(tokens.expiresAt) : null,
            refreshable: tokens.refreshToken !== undefined,
          },
          trx,
        );
        return tokens;
      } catch (e) {
        if (e instanceof OAuthGrantRefused) return fail(`${e.message}; connect again`);
        throw e;
      }
    });
  };
}
