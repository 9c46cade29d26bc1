import * as oauth from 'oauth4webapi';
import type { OAuthProvider } from '../config/oauth-providers';

/**
 * The OAuth 2.0 protocol, through `oauth4webapi`: the consent URL (authorization code + PKCE S256),
 * the code exchange, refresh and revocation against one operator-configured provider. Nothing here
 * touches the database; the callers store what comes back, sealed.
 */

/** Tokens as we keep them. */
export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string;
  /** ISO 8601; absent when the provider gave no `expires_in`. */
  expiresAt?: string;
}

/** The provider refused a grant for good (e.g. `invalid_grant`: revoked or expired refresh token). */
export class OAuthGrantRefused extends Error {
  constructor(
    readonly code: string,
    description: string | undefined,
  ) {
    super(`the provider refused the grant (${code}${description ? `: ${description}` : ''})`);
    this.name = 'OAuthGrantRefused';
  }
}

/** Errors the provider states in a token answer, which retrying cannot change. */
const REFUSALS = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope']);

function server(p: OAuthProvider): oauth.AuthorizationServer {
  return {
    issuer: p.issuer ?? new URL(p.authorizeUrl).origin,
    authorization_endpoint: p.authorizeUrl,
    token_endpoint: p.tokenUrl,
    ...(p.revocationUrl ? { revocation_endpoint: p.revocationUrl } : {}),
    ...(p.userinfoUrl ? { userinfo_endpoint: p.userinfoUrl } : {}),
  };
}

const client = (p: OAuthProvider): oauth.Client => ({ client_id: p.clientId });
const clientAuth = (p: OAuthProvider): oauth.ClientAuth =>
  p.tokenEndpointAuthMethod === 'client_secret_post' ? oauth.ClientSecretPost(p.clientSecret) : oauth.ClientSecretBasic(p.clientSecret);

/** Plain http is allowed only where configuration allowed it: loopback providers (see config/oauth-providers.ts). */
const requestOptions = (p: OAuthProvider) => ({ [oauth.allowInsecureRequests]: new URL(p.tokenUrl).protocol === 'http:' });

function tokensOf(answer: oauth.TokenEndpointResponse, previousRefreshToken?: string): OAuthTokens {
  const refreshToken = answer.refresh_token ?? previousRefreshToken;
  return {
    accessToken: answer.access_token,
    ...(refreshToken !== undefined ? { refreshToken } : {}),
    ...(typeof answer.expires_in === 'number' ? { expiresAt: new Date(Date.now() + answer.expires_in * 1000).toISOString() } : {}),
  };
}

function refusal(e: unknown): never {
  if (e instanceof oauth.ResponseBodyError && REFUSALS.has(e.error)) throw new OAuthGrantRefused(e.error, e.error_description);
  throw e;
}

/** A fresh PKCE verifier and `state`. */
export function newAuthorizationSecrets(): { codeVerifier: string; state: string } {
  return { codeVerifier: oauth.generateRandomCodeVerifier(), state: oauth.generateRandomState() };
}

/** The consent URL: authorization code flow with PKCE (S256) and `state`. */
export async function authorizationUrl(p: OAuthProvider, input: { redirectUri: string; state: string; codeVerifier: string }): Promise<string> {
  const url = new URL(p.authorizeUrl);
  const params: Record<string, string> = {
    ...p.authorizeParams,
    client_id: p.clientId,
    redirect_uri: input.redirectUri,
    response_type: 'code',
    state: input.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(input.codeVerifier),
    code_challenge_method: 'S256',
  };
  if (p.scopes.length > 0) params.scope = p.scopes.join(' ');
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * Checks the provider's answer at our callback (its `state`, RFC 9207 `iss`, `error`), exchanges
 * the code for tokens, and reads the account label from the userinfo endpoint when one is set.
 */
export async function exchangeCode(
  p: OAuthProvider,
  input: { callbackUrl: URL; state: string; codeVerifier: string; redirectUri: string },
): Promise<OAuthTokens & { accountLabel?: string }> {
  const as = server(p);
  const params = oauth.validateAuthResponse(as, client(p), input.callbackUrl, input.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client(p), clientAuth(p), params, input.redirectUri, input.codeVerifier, requestOptions(p));
  const answer = await oauth.processAuthorizationCodeResponse(as, client(p), response).catch(refusal);
  const tokens = tokensOf(answer);
  const accountLabel = p.userinfoUrl ? await userinfoLabel(p, as, tokens.accessToken) : undefined;
  return { ...tokens, ...(accountLabel !== undefined ? { accountLabel } : {}) };
}

async function userinfoLabel(p: OAuthProvider, as: oauth.AuthorizationServer, accessToken: string): Promise<string | undefined> {
  const response = await oauth.userInfoRequest(as, client(p), accessToken, requestOptions(p));
  const info = await oauth.processUserInfoResponse(as, client(p), oauth.skipSubjectCheck, response);
  const claims = p.accountLabelClaim ? [p.accountLabelClaim] : ['email', 'preferred_username', 'name', 'sub'];
  for (const claim of claims) {
    const value = info[claim];
    if (typeof value === 'string' && value !== '') return value.slice(0, 200);
  }
  return undefined;
}

/** New tokens for a refresh token; `OAuthGrantRefused` when the provider refuses it for good. */
export async function refreshTokens(p: OAuthProvider, refreshToken: string): Promise<OAuthTokens> {
  const as = server(p);
  const response = await oauth.refreshTokenGrantRequest(as, client(p), clientAuth(p), refreshToken, requestOptions(p));
  const answer = await oauth.processRefreshTokenResponse(as, client(p), response).catch(refusal);
  return tokensOf(answer, refreshToken);
}

/** Revokes a token at the provider's revocation endpoint (RFC 7009); does nothing without one. */
export async function revokeToken(p: OAuthProvider, token: string, hint: 'access_token' | 'refresh_token'): Promise<void> {
  if (!p.revocationUrl) return;
  const as = server(p);
  const response = await oauth.revocationRequest(as, client(p), clientAuth(p), token, {
    ...requestOptions(p),
    additionalParameters: { token_type_hint: hint },
  });
  await oauth.processRevocationResponse(response);
}
