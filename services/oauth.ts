import { createHash, timingSafeEqual } from 'node:crypto';
import type { OAuthProvider } from '../config/oauth-providers';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { CredentialOwner } from '../db/repositories/credentials';
import type { SealedConnection } from '../domain/credentials';
import { AppError } from '../domain/errors';
import { type SecretBox, sealContext } from '../domain/secret-box';
import { authorizationUrl, exchangeCode, newAuthorizationSecrets, revokeToken } from '../infra/oauth-client';
import type { Logger } from '../infra/logger';

export interface OAuthDeps {
  db: Db;
  repos: Repositories;
  box: SecretBox;
  providers: Record<string, OAuthProvider>;
  redirectUri: string;
  stateTtlSeconds: number;
  logger: Logger;
}

/** Why a callback did not connect anything, in words for the person at the browser. */
export class OAuthCallbackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthCallbackError';
  }
}

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/** The path of the start step, beside the callback on the same origin (so its cookie reaches the callback). */
export const OAUTH_START_PATH = '/v1/oauth/start';

/** Compared as digests in constant time. */
const sameSecret = (a: string, b: string) => timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/**
 * OAuth connections: the consent URL (`authorize`), the callback that stores the tokens sealed on
 * the owner the URL was made for (an agent, a conversation or an end user), and forgetting a
 * connection with revocation at the provider. The protocol itself is infra/oauth-client.ts.
 */
export class OAuthService {
  constructor(private readonly deps: OAuthDeps) {}

  /** The configured provider of that name, or 400 `oauth_not_configured` (its tokens are supplied with bind/attach instead). */
  provider(name: string, instead: string): OAuthProvider {
    const p = Object.hasOwn(this.deps.providers, name) ? this.deps.providers[name] : undefined;
    if (!p) {
      throw new AppError(
        'oauth_not_configured',
        `this server has no OAuth provider ${JSON.stringify(name)} configured (OAUTH_PROVIDERS / OAUTH_PROVIDERS_FILE), so it cannot send you to a consent page: ` +
          `obtain the tokens yourself and supply them with ${instead}`,
      );
    }
    return p;
  }

  /** The names of the configured providers, sorted. */
  providerNames(): string[] {
    return Object.keys(this.deps.providers).sort();
  }

  /** Whether a stored refresh token for `provider` can be used by this server. */
  canRefresh(provider: string): boolean {
    return Object.hasOwn(this.deps.providers, provider);
  }

  /**
   * A consent URL whose tokens will be stored on `owner`: our start step (`/v1/oauth/start`), which
   * binds the consent to the browser that opens it (a state cookie) and sends it on to the
   * provider. Its `state` is single-use and expires.
   */
  async begin(input: { workspaceId: string; owner: CredentialOwner; endUserId: string | null; provider: OAuthProvider }): Promise<{ url: string }> {
    const { codeVerifier, state } = newAuthorizationSecrets();
    const stateHash = hashState(state);
    await this.deps.repos.oauthStates.create({
      stateHash,
      workspaceId: input.workspaceId,
      owner: input.owner,
      endUserId: input.endUserId,
      provider: input.provider.name,
      codeVerifier: this.deps.box.seal(codeVerifier, sealContext('oauth-verifier', input.owner.kind, input.owner.id, stateHash)),
      expiresAt: new Date(Date.now() + this.deps.stateTtlSeconds * 1000),
    });
    const start = new URL(OAUTH_START_PATH, this.deps.redirectUri);
    start.searchParams.set('state', state);
    return { url: start.toString() };
  }

  /** The start step: the provider's consent URL for a live `state` (nothing is consumed here). */
  async start(state: string): Promise<{ url: string }> {
    const row = await this.deps.repos.oauthStates.live({ stateHash: hashState(state) });
    if (!row) throw new OAuthCallbackError('This link has expired or was already used. Start the connection again from the application.');
    const provider = Object.hasOwn(this.deps.providers, row.provider) ? this.deps.providers[row.provider] : undefined;
    if (!provider) throw new OAuthCallbackError(`The provider ${row.provider} is no longer configured on this server.`);
    const codeVerifier = this.deps.box.open(row.code_verifier, sealContext('oauth-verifier', row.owner_kind, row.owner_id, row.state_hash));
    return { url: await authorizationUrl(provider, { redirectUri: this.deps.redirectUri, state, codeVerifier }) };
  }

  /**
   * The provider sent the browser back to `callbackUrl`: check that this browser started the
   * consent (`startedState`, from its state cookie), consume the state (once, before it expires),
   * exchange the code and store the tokens sealed. A browser without the cookie consumes nothing.
   * Throws `OAuthCallbackError` with a message for the person at the browser.
   */
  async complete(callbackUrl: URL, startedState: string | undefined): Promise<{ provider: string; accountLabel?: string }> {
    const state = callbackUrl.searchParams.get('state');
    if (!state) throw new OAuthCallbackError('This link carries no state. Start the connection again from the application.');
    if (startedState === undefined || !sameSecret(startedState, state)) {
      throw new OAuthCallbackError(
        'This connection was started in another browser (or this browser blocks cookies), so it cannot be completed here. Open the connection link in this browser and try again.',
      );
    }
    const row = await this.deps.repos.oauthStates.consume({ stateHash: hashState(state) });
    if (!row) throw new OAuthCallbackError('This link has expired or was already used. Start the connection again from the application.');
    const provider = Object.hasOwn(this.deps.providers, row.provider) ? this.deps.providers[row.provider] : undefined;
    if (!provider) throw new OAuthCallbackError(`The provider ${row.provider} is no longer configured on this server.`);
    const owner: CredentialOwner = { kind: row.owner_kind, id: row.owner_id };
    const codeVerifier = this.deps.box.open(row.code_verifier, sealContext('oauth-verifier', owner.kind, owner.id, row.state_hash));
    let tokens: Awaited<ReturnType<typeof exchangeCode>>;
    try {
      tokens = await exchangeCode(provider, { callbackUrl, state, codeVerifier, redirectUri: this.deps.redirectUri });
    } catch (e) {
      this.deps.logger.info({ err: e, provider: row.provider }, 'an OAuth callback failed');
      throw new OAuthCallbackError(`${provider.name} did not connect: ${e instanceof Error ? e.message : String(e)}`);
    }
    const sealed: SealedConnection = {
      accessToken: tokens.accessToken,
      ...(tokens.refreshToken !== undefined ? { refreshToken: tokens.refreshToken } : {}),
      ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
    };
    try {
      await this.deps.db.transaction((trx) =>
        this.deps.repos.credentials.put(
          {
            workspaceId: row.workspace_id,
            owner,
            secrets: [],
            connections: [
              {
                provider: row.provider,
                value: this.deps.box.seal(JSON.stringify(sealed), sealContext('connection', owner.kind, owner.id, row.provider)),
                accountLabel: tokens.accountLabel ?? null,
                expiresAt: tokens.expiresAt !== undefined ? new Date(tokens.expiresAt) : null,
                refreshable: tokens.refreshToken !== undefined,
              },
            ],
          },
          trx,
        ),
      );
    } catch (e) {
      // The agent or conversation was deleted while its owner was at the consent page.
      this.deps.logger.info({ err: e, provider: row.provider }, 'OAuth tokens could not be stored');
      throw new OAuthCallbackError('What this connection was for no longer exists.');
    }
    return { provider: row.provider, ...(tokens.accountLabel !== undefined ? { accountLabel: tokens.accountLabel } : {}) };
  }

  /**
   * Forgets `owner`'s connection to `provider`, then revokes its tokens at the provider when a
   * revocation endpoint is configured (the refresh token, which ends the grant, else the access
   * token). A revocation that fails is logged: the tokens are forgotten here either way.
   */
  async forget(owner: CredentialOwner, provider: string): Promise<void> {
    const row = await this.deps.repos.credentials.deleteConnection({ owner, provider });
    const p = Object.hasOwn(this.deps.providers, provider) ? this.deps.providers[provider] : undefined;
    if (!row || !p?.revocationUrl) return;
    try {
      const sealed = JSON.parse(this.deps.box.open(row.value, sealContext('connection', owner.kind, owner.id, provider))) as SealedConnection;
      if (sealed.refreshToken !== undefined) await revokeToken(p, sealed.refreshToken, 'refresh_token');
      await revokeToken(p, sealed.accessToken, 'access_token');
    } catch (e) {
      this.deps.logger.warn({ err: e, provider }, 'revoking a disconnected OAuth token failed; the tokens are forgotten here');
    }
  }
}
