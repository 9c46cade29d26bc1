import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { type CookieJar, devInteractionForm } from './oidc-server';

/**
 * A real OpenID Connect provider for the sign-in tests: `oidc-provider` in this process on
 * 127.0.0.1, with one confidential client registered for our sign-in callback, PKCE required,
 * scopes `openid email profile`. Its people are what the test says (`person`): the login typed on
 * its (dev interactions) sign-in form names one, and their e-mail and `email_verified` are
 * whatever the test set — so a test can be someone whose address is not verified.
 */
export interface SignInProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Sets who `login` is. */
  person(login: string, claims: { email: string; emailVerified: boolean; name?: string }): void;
  close(): Promise<void>;
}

export async function startSignInProvider(opts: { redirectUri: string }): Promise<SignInProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'hosted-agents-sign-in';
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const people = new Map<string, { email: string; email_verified: boolean; name?: string }>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => {
        const who = people.get(sub);
        if (!who) throw new Error(`the test named no person ${sub}`);
        return { sub, ...who };
      },
    }),
    ttl: { AccessToken: 600, IdToken: 600, Grant: 600, Session: 600, Interaction: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: true }, userinfo: { enabled: true } },
    cookies: { keys: [`cookie-key-${clientSecret}`] },
  });
  provider.on('server_error', (_ctx, err) => process.stderr.write(`[oidc-provider] ${String(err)}\n`));
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    person: (login, claims) => people.set(login, { email: claims.email, email_verified: claims.emailVerified, ...(claims.name ? { name: claims.name } : {}) }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Walks a browser from `startUrl` through the provider's sign-in and consent forms as `login`,
 * following redirects with `jar`'s cookies, and stops *before* our callback (`callbackPath` on
 * `ourOrigin`): returns the URL the provider sent the browser to, so a test can follow it as is,
 * tamper with it, or follow it twice.
 */
export async function signInAtProvider(startUrl: string, login: string, jar: CookieJar, callback: URL): Promise<URL> {
  let url = new URL(startUrl);
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.origin === callback.origin && url.pathname === callback.pathname) return url;
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(url), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    });
    jar.store(url, res);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url);
      body = undefined;
      continue;
    }
    const form = devInteractionForm(await res.text(), res.status, url, login);
    url = form.url;
    body = form.fields;
  }
  throw new Error('the provider did not send the browser back to the callback within 20 hops');
}
