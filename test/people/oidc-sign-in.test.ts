import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { randomToken } from '../../domain/ids';
import type { Role } from '../../domain/roles';
import { startTestApi } from '../support/api';
import { CookieJar } from '../support/oidc-server';
import { signInAtProvider, type SignInProvider, startSignInProvider } from '../support/oidc-sign-in-provider';
import { useIsolatedStack } from '../support/isolated-stack';

/**
 * Sign-in with an OpenID Connect provider against a real one (oidc-provider, in this process),
 * driven as a browser would be: the authorization request carries PKCE, a state and a nonce; the
 * answer is taken only once, only in the browser that started, only with the right nonce and
 * verifier; the e-mail must be verified; an invite needs its own address; an allowed domain
 * lets a stranger of the company in as a viewer, and nobody else.
 */

interface Browser {
  jar: CookieJar;
  /** Our answer at the callback. */
  res: Response;
  page: string;
}

describe('sign-in with an OpenID Connect provider', function () {
  this.timeout(120_000);
  let idp: SignInProvider;
  const tag = randomToken(8);
  const stack = useIsolatedStack({
    worker: 'none',
    publicBaseURL: true,
    // The provider first: its redirect URI is the API's, and the env names the provider.
    env: async ({ baseURL }) => {
      idp = await startSignInProvider({ redirectUri: `${baseURL}/v1/auth/oidc/callback` });
      return { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret };
    },
  });
  after(async () => {
    await idp?.close();
  });
  const { api } = stack;
  const callback = () => new URL(`${stack.config.baseURL}/v1/auth/oidc/callback`);
  const startUrl = (query: Record<string, string> = {}) => `${stack.config.baseURL}/v1/auth/oidc/start?${new URLSearchParams(query)}`;

  /** Follows the provider's answer at our callback with the browser's cookies. */
  async function answer(jar: CookieJar, url: URL, cookie = jar.header(url)): Promise<Browser> {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie } });
    jar.store(url, res);
    return { jar, res, page: res.status === 302 ? '' : await res.text() };
  }

  /** A new browser signs in at the provider as `login` and comes back to our callback. */
  async function signIn(login: string, query: Record<string, string> = {}): Promise<Browser> {
    const jar = new CookieJar();
    return answer(jar, await signInAtProvider(startUrl(query), login, jar, callback()));
  }

  const setsSession = (res: Response) => res.headers.getSetCookie().some((c) => /^ha_session=hs_/.test(c));
  const codeOf = (page: string) => /data-code="([a-z_]+)"/.exec(page)?.[1];

  async function session(jar: CookieJar): Promise<{ status: number; body: { actor: { kind: string; id: string; role: Role }; workspace: { id: string }; member: { email: string } | null; csrfToken: string } }> {
    const url = new URL(`${stack.config.baseURL}/v1/session`);
    const res = await fetch(url, { headers: { cookie: jar.header(url) } });
    return { status: res.status, body: (await res.json()) as never };
  }

  async function memberOf(role: Role, email: string) {
    const { workspace, apiKey } = await api.newWorkspace({ name: `oidc ${role}` });
    const account = await api.repos.members.findOrCreateAccount({ email });
    const member = await api.repos.members.add({ workspaceId: workspace.id, accountId: account.id, role });
    return { workspace, apiKey, member: member! };
  }

  const sessionsOf = async (memberId: string) => Number((await api.db('sessions').where({ member_id: memberId }).count<{ n: string }[]>({ n: '*' }))[0]?.n);

  it('a member signs in: a session cookie that works with their role, the browser sent to returnTo, a signIn audit row', async () => {
    const email = `ada-${tag}@corp.test`;
    const { workspace, member } = await memberOf('reviewer', email);
    // The provider's address in another case is the same person.
    idp.person('ada', { email: email.toUpperCase(), emailVerified: true, name: 'Ada' });
    const browser = await signIn('ada', { workspaceId: workspace.id, returnTo: '/console/agents?tab=all' });
    assert.equal(browser.res.status, 302, browser.page);
    assert.equal(browser.res.headers.get('location'), `${stack.config.baseURL}/console/agents?tab=all`);
    const cookie = browser.res.headers.getSetCookie().find((c) => c.startsWith('ha_session='));
    assert.match(cookie ?? '', /HttpOnly/);
    assert.match(cookie ?? '', /SameSite=Lax/);

    const agents = await fetch(`${stack.config.baseURL}/v1/agents`, { headers: { cookie: browser.jar.header(new URL(stack.config.baseURL)) } });
    assert.equal(agents.status, 200);
    const me = await session(browser.jar);
    assert.equal(me.status, 200);
    assert.deepEqual([me.body.actor.kind, me.body.actor.id, me.body.actor.role, me.body.workspace.id, me.body.member?.email], ['member', member.id, 'reviewer', workspace.id, email]);
    // A reviewer cannot do a builder's work by cookie either.
    const create = await fetch(`${stack.config.baseURL}/v1/agents`, {
      method: 'POST',
      headers: { cookie: browser.jar.header(new URL(stack.config.baseURL)), 'content-type': 'application/json', 'x-csrf-token': me.body.csrfToken },
      body: JSON.stringify({ name: 'nope' }),
    });
    assert.equal(create.status, 403);
    assert.equal(((await create.json()) as { error: { code: string } }).error.code, 'forbidden');

    const rows = await api.db('audit_events').where({ workspace_id: workspace.id, action: 'signIn', actor_id: member.id });
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].detail, { method: 'oidc', joined: 'member' });
  });

  it('the authorization request carries PKCE (S256), a state and a nonce; the verifier and nonce stay on the server; the state is bound to the browser by an HttpOnly cookie', async () => {
    const start = await fetch(startUrl(), { redirect: 'manual' });
    assert.equal(start.status, 302);
    const auth = new URL(start.headers.get('location') ?? '');
    assert.equal(auth.origin, idp.issuer);
    const p = auth.searchParams;
    assert.equal(p.get('response_type'), 'code');
    assert.equal(p.get('client_id'), idp.clientId);
    assert.equal(p.get('redirect_uri'), callback().toString());
    assert.deepEqual(p.get('scope')?.split(' ').sort(), ['email', 'openid', 'profile']);
    assert.equal(p.get('code_challenge_method'), 'S256');
    assert.match(p.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(p.get('state') ?? '', /^[A-Za-z0-9_-]{32,}$/);
    assert.match(p.get('nonce') ?? '', /^[A-Za-z0-9_-]{32,}$/);
    assert.equal(p.has('code_verifier'), false);

    const state = p.get('state')!;
    const stateCookie = start.headers.getSetCookie().find((c) => c.startsWith('ha_oauth_'));
    assert.match(stateCookie ?? '', new RegExp(`^ha_oauth_[0-9a-f]{16}=${state}; Path=/v1/auth/oidc/callback; Max-Age=\\d+; HttpOnly; SameSite=Lax`));
    // The server keeps the sign-in under the state's hash, its secrets sealed (not even the nonce readable).
    const row = await api.db('oidc_sign_ins').where({ state_hash: createHash('sha256').update(state).digest('hex') }).first();
    assert.ok(row);
    assert.equal(Buffer.from(row.secrets).includes(p.get('nonce')!), false);
    assert.equal(row.return_to, '/console');
  });

  it('a tampered state is refused, and so is an answer in a browser that did not start, or a second time: no session is made', async () => {
    const email = `grace-${tag}@corp.test`;
    const { member } = await memberOf('builder', email);
    idp.person('grace', { email, emailVerified: true });
    const jar = new CookieJar();
    const genuine = await signInAtProvider(startUrl(), 'grace', jar, callback());
    const state = genuine.searchParams.get('state')!;

    const tampered = new URL(genuine);
    tampered.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
    const forged = await answer(jar, tampered);
    assert.equal(forged.res.status, 400, forged.page);
    assert.equal(codeOf(forged.page), 'invalid_link');
    assert.equal(setsSession(forged.res), false);

    const elsewhere = await answer(new CookieJar(), genuine);
    assert.equal(elsewhere.res.status, 400);
    assert.equal(codeOf(elsewhere.page), 'invalid_link');
    assert.match(elsewhere.page, /started in another browser/);

    // Neither consumed anything: the genuine answer, in the browser that started, signs in once.
    const ok = await answer(jar, genuine);
    assert.equal(ok.res.status, 302, ok.page);
    assert.equal(setsSession(ok.res), true);

    // Replayed with the state cookie the browser had (the callback cleared it): the state was used.
    const cookie = `ha_oauth_${createHash('sha256').update(state).digest('hex').slice(0, 16)}=${state}`;
    const replay = await answer(new CookieJar(), genuine, cookie);
    assert.equal(replay.res.status, 400);
    assert.equal(codeOf(replay.page), 'invalid_link');
    assert.match(replay.page, /already finished/);
    assert.equal(setsSession(replay.res), false);
    assert.equal(await sessionsOf(member.id), 1);

    const failed = await api.db('audit_events').where({ action: 'signInFailed', outcome: 'invalid_link' }).whereRaw("detail->>'method' = 'oidc'");
    assert.ok(failed.length >= 3);
  });

  it("an ID token with another nonce, or a code redeemed without the request's PKCE verifier, is refused", async () => {
    const email = `hedy-${tag}@corp.test`;
    const { member } = await memberOf('viewer', email);
    idp.person('hedy', { email, emailVerified: true });

    /** Starts in a new browser, changes one parameter of the authorization request (as an attacker in the middle would), signs in. */
    const withChanged = async (name: string, value: string) => {
      const jar = new CookieJar();
      const start = new URL(startUrl());
      const res = await fetch(start, { redirect: 'manual' });
      jar.store(start, res);
      const auth = new URL(res.headers.get('location') ?? '');
      auth.searchParams.set(name, value);
      return answer(jar, await signInAtProvider(auth.toString(), 'hedy', jar, callback()));
    };

    const nonce = await withChanged('nonce', `attacker-${randomToken(32)}`);
    assert.equal(nonce.res.status, 401, nonce.page);
    assert.equal(codeOf(nonce.page), 'oidc_failed');
    assert.match(nonce.page, /nonce/);
    assert.equal(setsSession(nonce.res), false);

    const pkce = await withChanged('code_challenge', createHash('sha256').update(randomToken(43)).digest('base64url'));
    assert.equal(pkce.res.status, 401, pkce.page);
    assert.equal(codeOf(pkce.page), 'oidc_failed');
    assert.match(pkce.page, /invalid_grant/);
    assert.equal(setsSession(pkce.res), false);
    assert.equal(await sessionsOf(member.id), 0);
  });

  it("the provider's own refusal (the person declined) is 401 oidc_failed, and uses the sign-in up", async () => {
    const jar = new CookieJar();
    const start = new URL(startUrl());
    const res = await fetch(start, { redirect: 'manual' });
    jar.store(start, res);
    const state = new URL(res.headers.get('location') ?? '').searchParams.get('state') ?? '';
    // What a provider sends back when the person cancels at its sign-in page (RFC 6749, 4.1.2.1).
    const declined = new URL(callback());
    declined.search = new URLSearchParams({ error: 'access_denied', error_description: 'the person cancelled', state, iss: idp.issuer }).toString();
    const cookie = jar.header(declined);
    const first = await answer(jar, declined, cookie);
    assert.equal(first.res.status, 401, first.page);
    assert.equal(codeOf(first.page), 'oidc_failed');
    assert.match(first.page, /access_denied/);
    const again = await answer(jar, declined, cookie);
    assert.equal(codeOf(again.page), 'invalid_link');
  });

  it("an e-mail the provider does not say is verified signs nobody in, even a member's", async () => {
    const email = `ida-${tag}@corp.test`;
    const { member } = await memberOf('owner', email);
    idp.person('ida-impostor', { email, emailVerified: false });
    const browser = await signIn('ida-impostor');
    assert.equal(browser.res.status, 403, browser.page);
    assert.equal(codeOf(browser.page), 'email_mismatch');
    assert.match(browser.page, /not.*verified|verified.*not/);
    assert.equal(setsSession(browser.res), false);
    assert.equal(await sessionsOf(member.id), 0);
  });

  it("an invite accepted by OIDC: another verified e-mail is refused and leaves the invite unused; the invite's own makes the member with its role", async () => {
    const { workspace } = await api.newWorkspace({ name: 'oidc invite' });
    const invited = `nia-${tag}@corp.test`;
    const invite = await api.repos.memberLinks.create({ kind: 'invite', workspaceId: workspace.id, email: invited, role: 'builder', ttlMs: 3_600_000 });

    idp.person('mallory', { email: `mallory-${tag}@corp.test`, emailVerified: true });
    const wrong = await signIn('mallory', { invite: invite.token });
    assert.equal(wrong.res.status, 403, wrong.page);
    assert.equal(codeOf(wrong.page), 'email_mismatch');
    assert.equal(setsSession(wrong.res), false);
    assert.ok(await api.repos.memberLinks.peek({ token: invite.token }), 'the invite stays unused');
    assert.equal((await api.repos.members.list({ workspaceId: workspace.id })).length, 0);

    idp.person('nia', { email: invited, emailVerified: true, name: 'Nia' });
    const right = await signIn('nia', { invite: invite.token });
    assert.equal(right.res.status, 302, right.page);
    assert.equal(right.res.headers.get('location'), `${stack.config.baseURL}/console`);
    const me = await session(right.jar);
    assert.deepEqual([me.body.actor.role, me.body.workspace.id, me.body.member?.email], ['builder', workspace.id, invited]);
    assert.equal(await api.repos.memberLinks.peek({ token: invite.token }), undefined, 'the invite is used');
    assert.equal((await api.repos.members.accountByEmail({ email: invited }))?.name, 'Nia');
    assert.equal((await api.db('audit_events').where({ workspace_id: workspace.id, action: 'inviteAccepted' })).length, 1);

    // Used: starting with it again is refused before the provider is visited.
    const again = await fetch(startUrl({ invite: invite.token }), { redirect: 'manual' });
    assert.equal(again.status, 400);
    assert.equal(codeOf(await again.text()), 'invalid_link');
  });

  it("an unknown e-mail of a workspace's allowed domain joins it as a viewer; another domain is not a member", async () => {
    const { workspace, apiKey } = await api.newWorkspace({ name: 'oidc domains' });
    const domain = `corp-${tag}.test`;
    const patch = (body: unknown) =>
      fetch(`${stack.config.baseURL}/v1/workspace`, { method: 'PATCH', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (const bad of [['Corp.test'], ['https://corp.test'], ['localhost'], Array.from({ length: 21 }, (_, i) => `d${i}.test`)]) {
      const res = await patch({ signInDomains: bad });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /^body\.signInDomains/);
    }
    const set = await patch({ signInDomains: [domain] });
    assert.equal(set.status, 200);
    assert.deepEqual(((await set.json()) as { signInDomains: string[] }).signInDomains, [domain]);
    const read = await fetch(`${stack.config.baseURL}/v1/workspace`, { headers: { authorization: `Bearer ${apiKey}` } });
    assert.deepEqual(((await read.json()) as { signInDomains: string[] }).signInDomains, [domain]);

    idp.person('newbie', { email: `newbie@${domain}`, emailVerified: true });
    const joined = await signIn('newbie');
    assert.equal(joined.res.status, 302, joined.page);
    const me = await session(joined.jar);
    assert.deepEqual([me.body.actor.role, me.body.workspace.id], ['viewer', workspace.id]);
    const signInRow = await api.db('audit_events').where({ workspace_id: workspace.id, action: 'signIn', actor_id: me.body.actor.id }).first();
    assert.deepEqual(signInRow?.detail, { method: 'oidc', joined: 'domain' });

    const stranger = `stranger@other-${tag}.test`;
    idp.person('stranger', { email: stranger, emailVerified: true });
    const refused = await signIn('stranger');
    assert.equal(refused.res.status, 403, refused.page);
    assert.equal(codeOf(refused.page), 'not_a_member');
    assert.equal(setsSession(refused.res), false);
    assert.equal(await api.repos.members.accountByEmail({ email: stranger }), undefined);
    const failed = await api.db('audit_events').where({ action: 'signInFailed', actor_email: stranger }).first();
    assert.equal(failed?.outcome, 'not_a_member');
  });

  it('returnTo must be a path on this server (no open redirect)', async () => {
    for (const returnTo of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'console', '/\tx']) {
      const res = await fetch(startUrl({ returnTo }), { redirect: 'manual' });
      assert.equal(res.status, 400, returnTo);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'invalid_request');
      assert.match(body.error.message, /^query\.returnTo/);
    }
  });

  it('without OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, starting answers 400 oidc_not_configured', async () => {
    const plain = await startTestApi();
    try {
      const res = await fetch(`${plain.baseURL}/v1/auth/oidc/start`, { redirect: 'manual' });
      assert.equal(res.status, 400);
      assert.equal(codeOf(await res.text()), 'oidc_not_configured');
    } finally {
      await plain.stop();
    }
  });
});
