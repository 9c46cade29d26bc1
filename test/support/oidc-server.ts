import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OAuth 2.0 / OpenID Connect server for tests: `oidc-provider` in this process on
 * 127.0.0.1, with one confidential client registered for our callback, PKCE required, refresh
 * tokens always issued, short-lived access tokens (so refresh is exercised), revocation and
 * userinfo on. Any login is accepted (its dev interactions); the account's e-mail is
 * `<login>@example.test`, which is what our account label reads.
 */
export interface OidcServer {
  issuer: string;
  provider: Provider;
  clientId: string;
  clientSecret: string;
  /** The `OAUTH_PROVIDERS` entry for this server. */
  providerConfig(): Record<string, unknown>;
  close(): Promise<void>;
}

export async function startOidcServer(opts: { redirectUri: string; accessTokenTtlSeconds: number }): Promise<OidcServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'hosted-agents-test';
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'offline_access'],
    claims: { openid: ['sub'], email: ['email'] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: `${sub}@example.test` }) }),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: opts.accessTokenTtlSeconds, IdToken: 3600, RefreshToken: 86_400, Grant: 86_400, Session: 3600, Interaction: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true }, userinfo: { enabled: true } },
    cookies: { keys: [`cookie-key-${clientSecret}`] },
  });
  // Its own warnings about dev interactions and dev keys are expected here.
  provider.on('server_error', (_ctx, err) => process.stderr.write(`[oidc-provider] ${String(err)}\n`));
  server.on('request', provider.callback());
  return {
    issuer,
    provider,
    clientId,
    clientSecret,
    providerConfig: () => ({
      clientId,
      clientSecret,
      authorizeUrl: `${issuer}/auth`,
      tokenUrl: `${issuer}/token`,
      revocationUrl: `${issuer}/token/revocation`,
      userinfoUrl: `${issuer}/me`,
      scopes: ['openid', 'email', 'offline_access'],
      // oidc-provider issues offline_access refresh tokens only after an explicit consent prompt.
      authorizeParams: { prompt: 'consent' },
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A tiny cookie jar: name=value per origin is all the provider's interaction cookies and our state cookie need. */
export class CookieJar {
  private readonly jar = new Map<string, Map<string, string>>();
  store(url: URL, res: Response): void {
    const cookies = this.jar.get(url.origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    this.jar.set(url.origin, cookies);
  }
  header(url: URL): string {
    return [...(this.jar.get(url.origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Goes through consent as a person at a browser would, with a cookie-aware client: opens the
 * consent URL, signs in as `login` on the provider's form, confirms the consent form, and follows
 * the redirects back to our callback (which stops at `stopAt`'s origin). Returns the callback URL
 * the provider sent the browser to and the page our service answered there.
 */
export async function consentAs(
  consentUrl: string,
  login: string,
  stopAt: string,
  jar = new CookieJar(),
): Promise<{ callbackUrl: string; status: number; page: string }> {
  let url = new URL(consentUrl);
  let method = 'GET';
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(url), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    jar.store(url, res);
    // Our start step (/v1/oauth/start) redirects on to the provider: our callback, or any page of ours, ends the walk.
    const redirected = res.status >= 300 && res.status < 400;
    if (url.origin === new URL(stopAt).origin && (!redirected || url.pathname.endsWith('/callback'))) {
      return { callbackUrl: url.toString(), status: res.status, page: await res.text() };
    }
    const location = res.headers.get('location');
    if (redirected && location) {
      url = new URL(location, url);
      [method, body] = ['GET', undefined];
      continue;
    }
    const form = devInteractionForm(await res.text(), res.status, url, login);
    url = form.url;
    [method, body] = ['POST', form.fields];
  }
  throw new Error('consent did not come back to the callback within 20 hops');
}

/**
 * oidc-provider's dev interactions, as a browser would fill them: the form of the page `html`
 * (its action and fields), with `login` on the sign-in form (any password is accepted); the
 * consent form has only hidden fields. Throws naming the page when it has no form.
 */
export function devInteractionForm(html: string, status: number, url: URL, login: string): { url: URL; fields: URLSearchParams } {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (status !== 200 || !action) throw new Error(`the provider stopped at ${url} (HTTP ${status}): ${html.slice(0, 400)}`);
  const fields = new URLSearchParams();
  for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(tag)?.[1];
    if (name) fields.set(name, /value="([^"]*)"/.exec(tag)?.[1] ?? '');
  }
  if (fields.has('login')) {
    fields.set('login', login);
    fields.set('password', 'any');
  }
  return { url: new URL(action.replace(/&amp;/g, '&'), url), fields };
}
