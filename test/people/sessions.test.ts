import assert from 'node:assert/strict';
import { call, type ErrorJson } from '../../harness/http';
import { useTestApi } from '../support/api';
import { addMember, asBrowser, sessionCookieOf, signIn } from '../support/people';

/**
 * Sessions (issue 50, item 3): a cookie that works on the same /v1 routes as a key, with the
 * member's role; idle and absolute expiry; sign out and sign out everywhere; and the CSRF token
 * every change by cookie needs.
 */
describe('sessions', () => {
  const api = useTestApi();

  async function member(role: 'owner' | 'builder' | 'viewer' = 'builder') {
    const { workspace, apiKey } = await api.newWorkspace({ name: 'sessions' });
    const m = await addMember(api, workspace.id, role);
    return { workspace, apiKey, ...m, browser: await signIn(api, m.email, m.password) };
  }

  const agentCount = async (workspaceId: string) => Number((await api.db('agents').where({ workspace_id: workspaceId }).count<{ n: number }[]>({ n: '*' }))[0]!.n);

  it('the cookie is HttpOnly, SameSite=Lax, for the whole site, and not Secure over plain http', async () => {
    const m = await addMember(api, (await api.newWorkspace()).workspace.id, 'viewer');
    const res = await call(api.baseURL, 'POST', '/v1/auth/password', { body: { email: m.email, password: m.password } });
    assert.equal(res.status, 200);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('ha_session='));
    assert.ok(setCookie);
    const attrs = setCookie.split(';').map((a) => a.trim().toLowerCase());
    assert.ok(attrs.includes('httponly'));
    assert.ok(attrs.includes('samesite=lax'));
    assert.ok(attrs.includes('path=/'));
    assert.ok(!attrs.includes('secure'));
  });

  it('a session works on ordinary routes with the member\'s role: a builder creates an agent, a viewer is refused', async () => {
    const builder = await member('builder');
    const created = await asBrowser<{ id: string }>(api, builder.browser, 'POST', '/v1/agents', { body: { name: 'By cookie' } });
    assert.equal(created.status, 201);
    const listed = await asBrowser<{ data: Array<{ id: string }> }>(api, builder.browser, 'GET', '/v1/agents');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((a) => a.id), [created.body.id]);

    const viewer = await member('viewer');
    assert.equal((await asBrowser(api, viewer.browser, 'GET', '/v1/agents')).status, 200);
    const refused = await asBrowser<ErrorJson>(api, viewer.browser, 'POST', '/v1/agents', { body: { name: 'Not allowed' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
    assert.equal(await agentCount(viewer.workspace.id), 0);
  });

  it('a change by cookie without the CSRF token, or with a wrong one, is 403 csrf_token_invalid and writes nothing', async () => {
    const { browser, workspace } = await member('owner');
    for (const csrf of [false, 'wrong-token', `${browser.csrfToken}x`] as const) {
      const res = await asBrowser<ErrorJson>(api, browser, 'POST', '/v1/agents', { body: { name: 'Forged' }, csrf });
      assert.equal(res.status, 403, String(csrf));
      assert.equal(res.body.error.code, 'csrf_token_invalid');
    }
    const invite = await asBrowser<ErrorJson>(api, browser, 'POST', '/v1/members', { body: { email: 'forged@people.test', role: 'owner' }, csrf: false });
    assert.equal(invite.body.error.code, 'csrf_token_invalid');
    assert.equal(await agentCount(workspace.id), 0);
    assert.equal((await api.db('member_links').where({ workspace_id: workspace.id }).count<{ n: number }[]>({ n: '*' }))[0]!.n, 0);
    // Reads need no token; the same change with it goes through.
    assert.equal((await asBrowser(api, browser, 'GET', '/v1/agents', { csrf: false })).status, 200);
    assert.equal((await asBrowser(api, browser, 'POST', '/v1/agents', { body: { name: 'Real' } })).status, 201);
  });

  it('GET /v1/session answers the member, role, CSRF token and expiry; for a key, the key', async () => {
    const m = await member('builder');
    const res = await asBrowser<{ actor: { kind: string; id: string; role: string }; member: { email: string }; csrfToken: string; expiresAt: string; workspace: { id: string } }>(api, m.browser, 'GET', '/v1/session');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.actor, { kind: 'member', id: m.memberId, role: 'builder' });
    assert.equal(res.body.member.email, m.email);
    assert.equal(res.body.csrfToken, m.browser.csrfToken);
    assert.equal(res.body.workspace.id, m.workspace.id);
    const days = (Date.parse(res.body.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 13.9 && days <= 14, `expires in ${days} days`);
    const byKey = await call<{ actor: { kind: string }; member: null; csrfToken: null }>(api.baseURL, 'GET', '/v1/session', { apiKey: m.apiKey });
    assert.equal(byKey.status, 200);
    assert.equal(byKey.body.actor.kind, 'key');
    assert.equal(byKey.body.member, null);
    assert.equal(byKey.body.csrfToken, null);
  });

  it('a session unused for SESSION_IDLE_HOURS ends (401 invalid_session)', async () => {
    const m = await member();
    assert.equal((await asBrowser(api, m.browser, 'GET', '/v1/agents')).status, 200);
    await api.db('sessions').where({ member_id: m.memberId }).update({ last_seen_at: api.db.raw("now() - interval '11 hours 59 minutes'") });
    assert.equal((await asBrowser(api, m.browser, 'GET', '/v1/agents')).status, 200, 'still live just inside 12 h');
    await api.db('sessions').where({ member_id: m.memberId }).update({ last_seen_at: api.db.raw("now() - interval '12 hours 1 minute'") });
    const res = await asBrowser<ErrorJson>(api, m.browser, 'GET', '/v1/agents');
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'invalid_session');
  });

  it('use keeps a session alive, but not past its absolute expiry (401 invalid_session)', async () => {
    const m = await member();
    // In use an hour ago, started almost 14 days ago: live.
    await api.db('sessions').where({ member_id: m.memberId }).update({ created_at: api.db.raw("now() - interval '13 days 23 hours'"), last_seen_at: api.db.raw("now() - interval '1 hour'") });
    assert.equal((await asBrowser(api, m.browser, 'GET', '/v1/agents')).status, 200);
    await api.db('sessions').where({ member_id: m.memberId }).update({ expires_at: api.db.raw("now() - interval '1 second'") });
    const res = await asBrowser<ErrorJson>(api, m.browser, 'GET', '/v1/agents');
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'invalid_session');
  });

  it('sign out ends this session and clears its cookie; the member\'s other sessions go on', async () => {
    const m = await member();
    const other = await signIn(api, m.email, m.password);
    const res = await asBrowser(api, m.browser, 'POST', '/v1/auth/sign-out');
    assert.equal(res.status, 204);
    const cleared = res.headers.getSetCookie().find((c) => c.startsWith('ha_session='));
    assert.ok(cleared?.includes('Max-Age=0'), cleared);
    assert.equal(sessionCookieOf(res), undefined);
    assert.equal(((await asBrowser<ErrorJson>(api, m.browser, 'GET', '/v1/agents')).body as ErrorJson).error.code, 'invalid_session');
    assert.equal((await asBrowser(api, other, 'GET', '/v1/agents')).status, 200);
    const audit = await api.db('audit_events').where({ workspace_id: m.workspace.id, action: 'signOut' }).select('actor_id', 'outcome');
    assert.deepEqual(audit, [{ actor_id: m.memberId, outcome: 'ok' }]);
  });

  it('sign out everywhere ends every session of the account, in every workspace', async () => {
    const m = await member();
    const second = await api.newWorkspace({ name: 'second' });
    await api.repos.members.add({ workspaceId: second.workspace.id, accountId: m.accountId, role: 'viewer' });
    const elsewhere = await signIn(api, m.email, m.password, {});
    const inSecond = await call<{ csrfToken: string }>(api.baseURL, 'POST', '/v1/auth/password', { body: { email: m.email, password: m.password, workspaceId: second.workspace.id } });
    assert.equal(inSecond.status, 200);
    const secondBrowser = { cookie: sessionCookieOf(inSecond)!, csrfToken: inSecond.body.csrfToken };
    const res = await asBrowser<{ ended: number }>(api, m.browser, 'POST', '/v1/auth/sign-out-everywhere');
    assert.equal(res.status, 200);
    assert.equal(res.body.ended, 3);
    for (const b of [m.browser, elsewhere, secondBrowser]) {
      const after = await asBrowser<ErrorJson>(api, b, 'GET', '/v1/session');
      assert.equal(after.status, 401);
      assert.equal(after.body.error.code, 'invalid_session');
    }
  });

  it('sign out with a key is refused (there is no session) and still audited', async () => {
    const { apiKey, workspace } = await api.newWorkspace();
    const res = await call<ErrorJson>(api.baseURL, 'POST', '/v1/auth/sign-out', { apiKey });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.equal((await api.db('audit_events').where({ workspace_id: workspace.id, action: 'signOut' })).length, 1);
  });

  it('changing the password checks the current one and ends the account\'s other sessions', async () => {
    const m = await member();
    const other = await signIn(api, m.email, m.password);
    const wrong = await asBrowser<ErrorJson>(api, m.browser, 'PUT', '/v1/session/password', { body: { currentPassword: 'not the password', newPassword: 'a brand new long password' } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'invalid_credentials');
    const short = await asBrowser<ErrorJson>(api, m.browser, 'PUT', '/v1/session/password', { body: { currentPassword: m.password, newPassword: 'short' } });
    assert.equal(short.status, 400);
    assert.match(short.body.error.message, /^body\.newPassword/);
    const ok = await asBrowser(api, m.browser, 'PUT', '/v1/session/password', { body: { currentPassword: m.password, newPassword: 'a brand new long password' } });
    assert.equal(ok.status, 204);
    assert.equal((await asBrowser(api, m.browser, 'GET', '/v1/session')).status, 200);
    assert.equal((await asBrowser(api, other, 'GET', '/v1/session')).status, 401);
    await signIn(api, m.email, 'a brand new long password');
    assert.equal((await call(api.baseURL, 'POST', '/v1/auth/password', { body: { email: m.email, password: m.password } })).status, 401);
  });
});
