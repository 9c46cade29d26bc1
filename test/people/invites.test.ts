import assert from 'node:assert/strict';
import { call, type ErrorJson } from '../../harness/http';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { addMember, asBrowser, linkInMail, linkPath, sessionCookieOf, signIn, startTestSmtp, type TestSmtp } from '../support/people';

interface Created {
  invite: { id: string; email: string; role: string; expiresAt: string };
  url: string;
  mailed: boolean;
}

/**
 * Invites (issue 50, item 2): an owner invites by e-mail with a role; the one-time link is shown
 * to the owner and mailed (a real SMTP server here); it expires, works once, is stored hashed, and
 * is for one e-mail.
 */
describe('invites', function () {
  this.timeout(120_000);
  let smtp: TestSmtp;
  before(async () => {
    smtp = await startTestSmtp();
  });
  after(() => smtp.close());
  const api = useTestApi(() => ({ config: { ...fixture().config, SMTP_URL: smtp.url } }));

  let n = 0;
  const newEmail = () => `invitee-${Date.now().toString(36)}-${++n}@people.test`;

  async function owner() {
    const { workspace, apiKey } = await api.newWorkspace({ name: 'Invites & Co' });
    const o = await addMember(api, workspace.id, 'owner');
    return { workspace, apiKey, ...o, browser: await signIn(api, o.email, o.password) };
  }

  async function invite(o: Awaited<ReturnType<typeof owner>>, email: string, role = 'builder') {
    const res = await asBrowser<Created>(api, o.browser, 'POST', '/v1/members', { body: { email, role } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  it('an owner invites by e-mail: the link is in the answer and in the mail; using it makes the member and signs them in', async () => {
    const o = await owner();
    const email = newEmail();
    const created = await invite(o, email.toUpperCase());
    assert.equal(created.invite.email, email);
    assert.equal(created.invite.role, 'builder');
    assert.equal(created.mailed, true);
    const hours = (Date.parse(created.invite.expiresAt) - Date.now()) / 3_600_000;
    assert.ok(hours > 71.9 && hours <= 72, `expires in ${hours} h`);
    const mail = await smtp.mailTo(email);
    assert.match(mail.text, /Invites & Co/);
    assert.equal(linkInMail(mail), created.url);
    // Stored only hashed.
    const row = await api.db('member_links').where({ id: created.invite.id }).first();
    assert.ok(!JSON.stringify(row).includes(created.url.split('/').pop()!));

    const page = await fetch(`${api.baseURL}${linkPath(created.url)}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Join Invites &#38; Co/);
    assert.match(html, /autocomplete="new-password"/);
    const pending = await asBrowser<{ data: Array<{ id: string }> }>(api, o.browser, 'GET', '/v1/members/invites');
    assert.deepEqual(pending.body.data.map((i) => i.id), [created.invite.id]);

    const used = await call<{ member: { id: string; email: string; name: string; role: string }; csrfToken: string }>(api.baseURL, 'POST', linkPath(created.url), {
      body: { name: 'Ada Invitee', password: 'a long enough password' },
    });
    assert.equal(used.status, 200);
    assert.equal(used.body.member.email, email);
    assert.equal(used.body.member.name, 'Ada Invitee');
    assert.equal(used.body.member.role, 'builder');
    const newcomer = { cookie: sessionCookieOf(used)!, csrfToken: used.body.csrfToken };
    assert.equal((await asBrowser(api, newcomer, 'POST', '/v1/agents', { body: { name: 'Their first' } })).status, 201);
    await signIn(api, email, 'a long enough password');
    const members = await asBrowser<{ data: Array<{ email: string; role: string }> }>(api, o.browser, 'GET', '/v1/members');
    assert.deepEqual(members.body.data.map((m) => [m.email, m.role]), [[o.email, 'owner'], [email, 'builder']]);
    assert.deepEqual((await asBrowser<{ data: unknown[] }>(api, o.browser, 'GET', '/v1/members/invites')).body.data, []);
    const actions = (await api.db('audit_events').where({ workspace_id: o.workspace.id }).orderBy('seq').select('action')).map((r: { action: string }) => r.action);
    assert.deepEqual(actions, ['signIn', 'inviteMember', 'inviteAccepted', 'signIn', 'createAgent', 'signIn']);
  });

  it('an invite works once: the second use is 400 invalid_link', async () => {
    const o = await owner();
    const created = await invite(o, newEmail());
    assert.equal((await call(api.baseURL, 'POST', linkPath(created.url), { body: { password: 'a long enough password' } })).status, 200);
    const again = await call<ErrorJson>(api.baseURL, 'POST', linkPath(created.url), { body: { password: 'another long password' } });
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, 'invalid_link');
  });

  it('two uses of one invite at the same moment: exactly one succeeds', async () => {
    const o = await owner();
    const created = await invite(o, newEmail());
    const results = await Promise.all([1, 2, 3].map((i) => call(api.baseURL, 'POST', linkPath(created.url), { body: { password: `a long enough password ${i}` } })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400]);
    assert.equal((await api.repos.members.list({ workspaceId: o.workspace.id })).length, 2);
  });

  it('an expired invite is 400 invalid_link, on the page and on use, and makes no member', async () => {
    const o = await owner();
    const email = newEmail();
    const created = await invite(o, email);
    await api.db('member_links').where({ id: created.invite.id }).update({ expires_at: api.db.raw("now() - interval '1 second'") });
    assert.equal((await fetch(`${api.baseURL}${linkPath(created.url)}`)).status, 400);
    const res = await call<ErrorJson>(api.baseURL, 'POST', linkPath(created.url), { body: { password: 'a long enough password' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_link');
    assert.equal(await api.repos.members.accountByEmail({ email }), undefined);
  });

  it('an invite used for another e-mail is 403 email_mismatch and stays usable by its own', async () => {
    const o = await owner();
    const email = newEmail();
    const created = await invite(o, email);
    const wrong = await call<ErrorJson>(api.baseURL, 'POST', linkPath(created.url), { body: { email: 'someone-else@people.test', password: 'a long enough password' } });
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.error.code, 'email_mismatch');
    const right = await call(api.baseURL, 'POST', linkPath(created.url), { body: { email, password: 'a long enough password' } });
    assert.equal(right.status, 200);
  });

  it('an invitee who already has a password joins with it (the inviter, who saw the link, cannot set it)', async () => {
    const o = await owner();
    const elsewhere = await api.newWorkspace();
    const existing = await addMember(api, elsewhere.workspace.id, 'viewer');
    const created = await invite(o, existing.email, 'reviewer');
    const page = await (await fetch(`${api.baseURL}${linkPath(created.url)}`)).text();
    assert.match(page, /autocomplete="current-password"/);
    const wrong = await call<ErrorJson>(api.baseURL, 'POST', linkPath(created.url), { body: { password: 'the inviter guesses a new one' } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'invalid_credentials');
    const right = await call<{ member: { role: string } }>(api.baseURL, 'POST', linkPath(created.url), { body: { password: existing.password } });
    assert.equal(right.status, 200);
    assert.equal(right.body.member.role, 'reviewer');
    await signIn(api, existing.email, existing.password);
  });

  it("guessing an existing account's password through an invite counts toward its sign-in attempt limit", async () => {
    const o = await owner();
    const elsewhere = await api.newWorkspace();
    const existing = await addMember(api, elsewhere.workspace.id, 'viewer');
    const created = await invite(o, existing.email, 'viewer');
    for (let i = 0; i < fixture().config.SIGN_IN_ATTEMPTS_PER_ACCOUNT; i++) {
      assert.equal((await call(api.baseURL, 'POST', linkPath(created.url), { body: { password: `guess number ${i}` } })).status, 401);
    }
    const limited = await call<ErrorJson>(api.baseURL, 'POST', linkPath(created.url), { body: { password: existing.password } });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limited');
    assert.equal((await call(api.baseURL, 'POST', '/v1/auth/password', { body: { email: existing.email, password: existing.password } })).status, 429);
  });

  it('a too short password is 400 naming the field and does not use the invite', async () => {
    const o = await owner();
    const created = await invite(o, newEmail());
    const res = await call<ErrorJson>(api.baseURL, 'POST', linkPath(created.url), { body: { password: 'short' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.match(res.body.error.message, /^body\.password: at least 12 characters/);
    assert.equal((await call(api.baseURL, 'POST', linkPath(created.url), { body: { password: 'a long enough password' } })).status, 200);
  });

  it('a revoked invite stops working; inviting a member again is 409 member_exists; only owners invite', async () => {
    const o = await owner();
    const created = await invite(o, newEmail());
    assert.equal((await asBrowser(api, o.browser, 'DELETE', `/v1/members/invites/${created.invite.id}`)).status, 204);
    assert.equal(((await call<ErrorJson>(api.baseURL, 'POST', linkPath(created.url), { body: { password: 'a long enough password' } })).body as ErrorJson).error.code, 'invalid_link');
    const exists = await asBrowser<ErrorJson>(api, o.browser, 'POST', '/v1/members', { body: { email: o.email, role: 'viewer' } });
    assert.equal(exists.status, 409);
    assert.equal(exists.body.error.code, 'member_exists');
    const builder = await addMember(api, o.workspace.id, 'builder');
    const refused = await asBrowser<ErrorJson>(api, await signIn(api, builder.email, builder.password), 'POST', '/v1/members', { body: { email: newEmail(), role: 'owner' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
  });

  it('an unknown or malformed link is 400 invalid_link', async () => {
    const unknown = await call<ErrorJson>(api.baseURL, 'POST', `/v1/auth/links/hl_${'A'.repeat(43)}`, { body: { password: 'a long enough password' } });
    assert.equal(unknown.body.error.code, 'invalid_link');
    const malformed = await call<ErrorJson>(api.baseURL, 'POST', '/v1/auth/links/not-a-link', { body: {} });
    assert.equal(malformed.body.error.code, 'invalid_link');
    assert.equal((await fetch(`${api.baseURL}/v1/auth/links/not-a-link`)).status, 400);
  });
});

describe('invites and resets when the mail server is down', function () {
  this.timeout(60_000);
  // Nothing listens on port 1: every connection is refused.
  const api = useTestApi(() => ({ config: { ...fixture().config, SMTP_URL: 'smtp://127.0.0.1:1' } }));

  it('an invite still answers its link (mailed: false), and a reset request still answers 202 for a member', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const created = await call<Created>(api.baseURL, 'POST', '/v1/members', { apiKey, body: { email: 'offline@people.test', role: 'viewer' } });
    assert.equal(created.status, 201);
    assert.equal(created.body.mailed, false);
    assert.equal((await call(api.baseURL, 'POST', linkPath(created.body.url), { body: { password: 'a long enough password' } })).status, 200);
    const member = await addMember(api, workspace.id, 'viewer');
    const reset = await call(api.baseURL, 'POST', '/v1/auth/password/reset', { body: { email: member.email } });
    assert.equal(reset.status, 202);
  });
});
