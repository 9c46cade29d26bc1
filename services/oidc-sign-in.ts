import { createHash, timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Config } from '../config/env';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { MemberRecord } from '../db/repositories/members';
import { oidcSignInSealContext } from '../db/repositories/oidc-sign-ins';
import { AppError, type ErrorCode } from '../domain/errors';
import { normalizeEmail } from '../domain/member';
import type { SecretBox } from '../domain/secret-box';
import type { Logger } from '../infra/logger';

/** The provider this server signs people in with (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The settings when all three variables are set (config/env.ts refuses one or two of them); undefined: OIDC is off. */
export function oidcSettings(config: Pick<Config, 'OIDC_ISSUER' | 'OIDC_CLIENT_ID' | 'OIDC_CLIENT_SECRET'>): OidcSettings | undefined {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = config;
  return issuer && clientId && clientSecret ? { issuer, clientId, clientSecret } : undefined;
}

/** The start step's path; the callback is `OIDC_CALLBACK_PATH` on `baseURL` (the redirect URI to register). */
export const OIDC_START_PATH = '/v1/auth/oidc/start';
export const OIDC_CALLBACK_PATH = '/v1/auth/oidc/callback';
/** Where a signed-in browser goes when the start named no `returnTo`. */
export const DEFAULT_RETURN_TO = '/console';

/** How long a started sign-in may be finished: the provider's sign-in page, plus a person typing a password and a code. */
const REQUEST_TTL_MS = 10 * 60_000;

/**
 * `returnTo` as a path on our own origin, or undefined for anything else: an absolute URL, a
 * scheme-relative `//host`, a backslash (browsers read `/\host` as `//host`) or a control
 * character could send the freshly signed-in browser to another site (an open redirect).
 */
export function sameOriginPath(text: string): string | undefined {
  const control = Array.from(text).some((c) => c <= '\u001f' || c === '\u007f');
  if (!text.startsWith('/') || text.startsWith('//') || text.includes('\\') || control) return undefined;
  const probe = new URL(text, 'http://origin.invalid');
  if (probe.origin !== 'http://origin.invalid') return undefined;
  return `${probe.pathname}${probe.search}${probe.hash}`;
}

/** A refused sign-in, with what is known of who tried (for its audit row). */
export class OidcSignInRefused extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly attempt: { email?: string; workspaceId?: string | null } = {},
  ) {
    super(code, message);
    this.name = 'OidcSignInRefused';
  }
}

/** What is sealed in the pending sign-in's row: never sent to the provider or the page. */
interface PendingSecrets {
  codeVerifier: string;
  nonce: string;
  invite?: string;
}

/** How the person came to be the member they are signed in as. */
export type OidcJoin = 'member' | 'invite' | 'domain';

export interface OidcSignedIn {
  member: MemberRecord;
  joined: OidcJoin;
  returnTo: string;
}

export interface OidcSignInDeps {
  db: Db;
  repos: Pick<Repositories, 'oidcSignIns' | 'members' | 'memberLinks' | 'workspaces'>;
  box: SecretBox;
  /** Undefined: OIDC is off, and every step answers 400 `oidc_not_configured`. */
  settings: OidcSettings | undefined;
  /** `<baseURL>/v1/auth/oidc/callback`, registered with the provider. */
  redirectUri: string;
  logger: Logger;
}

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');
const sameSecret = (a: string, b: string) => timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/**
 * Why openid-client refused, in words: its message, the check underneath (`unexpected ID Token
 * "nonce" claim value`) and the provider's OAuth error. Never the expected values (a nonce).
 */
function reasonOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const inner = e.cause instanceof Error && e.cause.message !== e.message ? `: ${e.cause.message}` : '';
  const { error, error_description: description } = e as { error?: unknown; error_description?: unknown };
  const oauth = typeof error === 'string' ? ` (${error}${typeof description === 'string' ? `: ${description}` : ''})` : '';
  return `${e.message}${inner}${oauth}`.slice(0, 500);
}

/** Plain http is allowed for a provider on this machine only (a development or test provider); anywhere else TLS is required. */
const isLoopback = (url: URL) => ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);

/**
 * Sign-in with any OpenID Connect provider (docs/security.md, "Sign-in with an identity provider
 * (OIDC)"), through `openid-client`: the authorization code flow with PKCE (S256), a single-use
 * `state` bound to the browser that started (its cookie, api/cookies/oauth-cookie.ts) and a `nonce`
 * the ID token must carry. The person is then matched by their verified e-mail: an invite's
 * address, a member's, or an allowed sign-in domain's (joining as a viewer).
 */
export class OidcSignInService {
  /** The provider's discovered configuration, fetched once; a failed discovery is tried again next time. */
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(private readonly deps: OidcSignInDeps) {}

  private settings(): OidcSettings {
    const { settings } = this.deps;
    if (!settings) {
      throw new AppError('oidc_not_configured', 'sign-in with an identity provider is off on this server: the operator sets OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
    }
    return settings;
  }

  private async discover(): Promise<oidc.Configuration> {
    const settings = this.settings();
    this.configuration ??= (async () => {
      const issuer = new URL(settings.issuer);
      return oidc.discovery(issuer, settings.clientId, undefined, oidc.ClientSecretBasic(settings.clientSecret), {
        // openid-client refuses plain http; it is allowed here only for an issuer on loopback (a provider on this machine).
        ...(issuer.protocol === 'http:' && isLoopback(issuer) ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
    })();
    try {
      return await this.configuration;
    } catch (e) {
      this.configuration = undefined;
      this.deps.logger.warn({ err: e, issuer: settings.issuer }, 'OIDC discovery failed');
      throw new AppError('oidc_failed', `the identity provider at ${settings.issuer} could not be reached or its discovery document is not valid; try again later`, undefined, { cause: e });
    }
  }

  /**
   * Starts a sign-in: stores its secrets under the hash of a new `state` and returns the
   * provider's authorization URL and the state (for the browser's cookie). With an invite, the
   * invite must be live now; it is used only once the provider confirms its e-mail.
   */
  async begin(input: { workspaceId?: string; invite?: string; returnTo: string }): Promise<{ url: string; state: string }> {
    const config = await this.discover();
    let workspaceId = input.workspaceId ?? null;
    if (input.invite !== undefined) {
      const link = await this.deps.repos.memberLinks.peek({ token: input.invite });
      if (link?.kind !== 'invite') throw new OidcSignInRefused('invalid_link', 'this invite is unknown, was used before, or has expired: ask for a new one', { workspaceId });
      workspaceId = link.workspaceId;
    }
    const secrets: PendingSecrets = {
      codeVerifier: oidc.randomPKCECodeVerifier(),
      nonce: oidc.randomNonce(),
      ...(input.invite !== undefined ? { invite: input.invite } : {}),
    };
    const state = oidc.randomState();
    const stateHash = hashState(state);
    await this.deps.repos.oidcSignIns.create({
      stateHash,
      secrets: this.deps.box.seal(JSON.stringify(secrets), oidcSignInSealContext(stateHash)),
      workspaceId,
      returnTo: input.returnTo,
      expiresAt: new Date(Date.now() + REQUEST_TTL_MS),
    });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.deps.redirectUri,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce: secrets.nonce,
    });
    return { url: url.toString(), state };
  }

  /**
   * The provider sent the browser back to `callbackUrl`: checks that this browser started the
   * sign-in (`startedState`, from its cookie), consumes the state (once, before it expires),
   * exchanges the code with the PKCE verifier, validates the ID token (signature, issuer,
   * audience, expiry, nonce) and finds or makes the member of the verified e-mail.
   */
  async complete(callbackUrl: URL, startedState: string | undefined): Promise<OidcSignedIn> {
    const state = callbackUrl.searchParams.get('state');
    if (!state) throw new OidcSignInRefused('invalid_link', 'this answer from the identity provider carries no state: start signing in again');
    if (startedState === undefined || !sameSecret(startedState, state)) {
      throw new OidcSignInRefused(
        'invalid_link',
        'this sign-in was started in another browser (or this browser blocks cookies), so it cannot be finished here: start signing in again in this browser',
      );
    }
    const config = await this.discover();
    const stateHash = hashState(state);
    const row = await this.deps.repos.oidcSignIns.consume({ stateHash });
    if (!row) throw new OidcSignInRefused('invalid_link', 'this sign-in has expired or was already finished: start signing in again');
    const secrets = JSON.parse(this.deps.box.open(row.secrets, oidcSignInSealContext(stateHash))) as PendingSecrets;
    const hint = { workspaceId: row.workspace_id };

    /** The e-mail and whether it is verified, from one source (never an address from one and a `true` from the other); the name. */
    let claims: { email?: unknown; email_verified?: unknown; name?: unknown };
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: secrets.codeVerifier,
        expectedState: state,
        expectedNonce: secrets.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('the provider sent no ID token');
      claims = { email: idClaims.email, email_verified: idClaims.email_verified, name: idClaims.name };
      // Many providers put the e-mail in the UserInfo answer only (for the same subject: checked).
      if ((typeof idClaims.email !== 'string' || idClaims.email_verified === undefined) && config.serverMetadata().userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        if (typeof info.email === 'string') claims = { email: info.email, email_verified: info.email_verified, name: idClaims.name ?? info.name };
      }
    } catch (e) {
      this.deps.logger.info({ err: e }, 'an OIDC sign-in callback was refused');
      throw new OidcSignInRefused('oidc_failed', `the identity provider's answer was refused: ${reasonOf(e)}`, hint);
    }

    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : undefined;
    if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new OidcSignInRefused('email_mismatch', 'your identity provider did not tell us your e-mail address', hint);
    const attempt = { email, workspaceId: row.workspace_id };
    // Only a boolean true: a provider that does not vouch for the address could let anyone claim a member's.
    if (claims.email_verified !== true) {
      throw new OidcSignInRefused('email_mismatch', `your identity provider does not say ${email} is verified, so it cannot sign you in`, attempt);
    }
    const name = typeof claims.name === 'string' ? claims.name.trim().slice(0, 200) : undefined;
    const found = secrets.invite !== undefined ? await this.acceptInvite(secrets.invite, email, name) : await this.memberFor(email, name, row.workspace_id);
    return { ...found, returnTo: row.return_to };
  }

  /** The invite's e-mail must be the verified one; the invite is used and its role granted (an existing member keeps theirs). */
  private async acceptInvite(token: string, email: string, name: string | undefined): Promise<{ member: MemberRecord; joined: OidcJoin }> {
    const { repos } = this.deps;
    const link = await repos.memberLinks.peek({ token });
    if (link?.kind !== 'invite') throw new OidcSignInRefused('invalid_link', 'this invite is unknown, was used before, or has expired: ask for a new one', { email });
    if (link.email !== email) {
      throw new OidcSignInRefused('email_mismatch', `this invite was sent to another address than ${email}: sign in with that account, or ask for an invite to this one`, {
        email,
        workspaceId: link.workspaceId,
      });
    }
    return this.deps.db.transaction(async (trx) => {
      const used = await repos.memberLinks.consume({ token }, trx);
      if (!used) throw new OidcSignInRefused('invalid_link', 'this invite was used or expired a moment ago: ask for a new one', { email, workspaceId: link.workspaceId });
      const account = await repos.members.findOrCreateAccount({ email, ...(name ? { name } : {}) }, trx);
      const member =
        (await repos.members.add({ workspaceId: used.workspaceId, accountId: account.id, role: used.role ?? 'viewer' }, trx)) ??
        (await repos.members.memberOf({ workspaceId: used.workspaceId, accountId: account.id }, trx));
      if (!member) throw new Error('a member neither added nor found');
      return { member, joined: 'invite' as const };
    });
  }

  /**
   * The member of `email`: in the hinted workspace when the start named one, else in the
   * workspace they were last seen in. Else, when a workspace allows the e-mail's domain — the
   * hinted one, or without a hint the only one that does — a new viewer there.
   */
  private async memberFor(email: string, name: string | undefined, hint: string | null): Promise<{ member: MemberRecord; joined: OidcJoin }> {
    const { repos } = this.deps;
    const account = await repos.members.accountByEmail({ email });
    if (account) {
      const member = hint ? await repos.members.memberOf({ workspaceId: hint, accountId: account.id }) : (await repos.members.membershipsOf({ accountId: account.id }))[0];
      if (member) return { member, joined: 'member' };
    }
    const domain = email.slice(email.lastIndexOf('@') + 1);
    const allowing = await repos.workspaces.allowingSignInDomain({ domain });
    const target = hint ? allowing.find((id) => id === hint) : allowing.length === 1 ? allowing[0] : undefined;
    if (!target) {
      const more = !hint && allowing.length > 1 ? ': several workspaces allow this domain, so sign in from your workspace’s own sign-in link' : '';
      throw new OidcSignInRefused('not_a_member', `${email} is not a member of ${hint ? 'this workspace' : 'any workspace'}${more}; ask an owner to invite you`, {
        email,
        workspaceId: hint,
      });
    }
    return this.deps.db.transaction(async (trx) => {
      const joined = await repos.members.findOrCreateAccount({ email, ...(name ? { name } : {}) }, trx);
      const member =
        (await repos.members.add({ workspaceId: target, accountId: joined.id, role: 'viewer' }, trx)) ??
        (await repos.members.memberOf({ workspaceId: target, accountId: joined.id }, trx));
      if (!member) throw new Error('a member neither added nor found');
      return { member, joined: 'domain' as const };
    });
  }
}
