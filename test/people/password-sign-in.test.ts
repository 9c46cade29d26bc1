import assert from 'node:assert/strict';
import { call, type ErrorJson } from '../../harness/http';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { addMember, asBrowser, linkInMail, linkPath, sessionCookieOf, signIn, startTestSmtp, type TestSmtp } from '../support/people';

/**
 * Password sign-in (issue 50, item 2): one answer for a wrong password and an unknown e-mail (and
 * about the same time), attempt limits per account and per address that refuse before any hash is
 * computed, and a reset by a one-time link mailed through a real SMTP server.
 * TRUST_PROXY lets each test call from an address of its own (X-Forwarded-For).
 */
describe('password sign-in', function () {
  this.timeout(120_000);
  let smtp: TestSmtp;
  before(async () => {
    smtp = await startTestSmtp();
  });
  after(() => smtp.close());
  const api = useTestApi(() => ({
    config: { ...fixture().config, TRUST_PROXY: true, SMTP_URL: smtp.url, SIGN_IN_ATTEMPTS_PER_ACCOUNT: 3, SIGN_IN_ATTEMPTS_PER_ADDRESS: 6 },
  }));

  let addressCounter = 0;
  /** A client address of the test's own. */
  const from = () => ({ 'x-forwarded-for': `198.51.100.${++addressCounter}` });
  const attempt = (email: string, password: string, headers: Record<string, string>) =>
    call<ErrorJson>(api.baseURL, 'POST', '/v1/auth/password', { body: { email, password }, headers });

  async function member(role: 'owner' | 'viewer' = 'viewer') {
    const { workspace } = await api.newWorkspace({ name: 'password' });
    return { workspace, ...(await addMember(api, workspace.id, role)) };
  }

  it('the right password signs in (any case of the e-mail) and is audited', async () => {
    const m = await member('owner');
    const res = await call<{ member: { id: string; role: string }; workspace: { id: string }; csrfToken: string }>(api.baseURL, 'POST', '/v1/auth/password', {
      body: { email: m.email.toUpperCase(), password: m.password },
      headers: from(),
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.member.id, m.memberId);
    assert.equal(res.body.member.role, 'owner');
    assert.equal(res.body.workspace.id, m.workspace.id);
    assert.ok(sessionCookieOf(res));
    const rows = await api.db('audit_events').where({ workspace_id: m.workspace.id, action: 'signIn' }).select('actor_id', 'actor_email', 'outcome');
    assert.deepEqual(rows, [{ actor_id: m.memberId, actor_email: m.email, outcome: 'ok' }]);
  });

  it('a wrong password and an unknown e-mail get the same 401 invalid_credentials, in about the same time', async () => {
    const m = await member();
    const headers = from();
    const wrong = await attempt(m.email, 'not the password at all', headers);
    const unknown = await attempt('nobody-here@people.test', 'not the password at all', headers);
    assert.equal(wrong.status, 401);
    assert.deepEqual(unknown.body, wrong.body);
    assert.equal(wrong.body.error.code, 'invalid_credentials');
    // Timing: both verify an argon2id hash (the unknown e-mail a dummy one), so neither answers in a few ms.
    const time = async (email: string) => {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        await attempt(email, 'not the password at all', from());
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[1]!;
    };
    const known = await time(m.email);
    await api.db('sign_in_failures').where({ email: m.email }).update({ account_cleared: true });
    const unknownTime = await time('nobody-here@people.test');
    assert.ok(unknownTime > known * 0.3 && unknownTime < known * 3, `unknown e-mail ${unknownTime.toFixed(1)} ms vs wrong password ${known.toFixed(1)} ms`);
    const failed = await api.db('audit_events').where({ action: 'signInFailed', actor_email: 'nobody-here@people.test' }).first('outcome', 'workspace_id');
    assert.deepEqual(failed, { outcome: 'invalid_credentials', workspace_id: null });
    const memberFailed = await api.db('audit_events').where({ action: 'signInFailed', actor_email: m.email }).first('workspace_id');
    assert.equal(memberFailed?.workspace_id, m.workspace.id, "a member's failed sign-in is in their workspace's log, for its owners");
  });

  it('a member of several workspaces signs in to the one they name, or the one seen last; another workspace id is the same 401', async () => {
    const m = await member();
    const second = await api.newWorkspace({ name: 'second' });
    await api.repos.members.add({ workspaceId: second.workspace.id, accountId: m.accountId, role: 'owner' });
    await api.db('members').where({ account_id: m.accountId, workspace_id: m.workspace.id }).update({ last_seen_at: api.db.fn.now() });
    const byDefault = await call<{ workspace: { id: string } }>(api.baseURL, 'POST', '/v1/auth/password', { body: { email: m.email, password: m.password }, headers: from() });
    assert.equal(byDefault.body.workspace.id, m.workspace.id);
    const named = await call<{ workspace: { id: string }; member: { role: string } }>(api.baseURL, 'POST', '/v1/auth/password', {
      body: { email: m.email, password: m.password, workspaceId: second.workspace.id },
      headers: from(),
    });
    assert.equal(named.body.workspace.id, second.workspace.id);
    assert.equal(named.body.member.role, 'owner');
    const other = await api.newWorkspace();
    const refused = await call<ErrorJson>(api.baseURL, 'POST', '/v1/auth/password', { body: { email: m.email, password: m.password, workspaceId: other.workspace.id }, headers: from() });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'invalid_credentials');
  });

  it('past SIGN_IN_ATTEMPTS_PER_ACCOUNT failures the account is refused with 429 (even the right password) before any hash, from any address', async () => {
    const m = await member();
    for (let i = 0; i < 3; i++) assert.equal((await attempt(m.email, `wrong ${i}`, from())).status, 401);
    const started = performance.now();
    const refused = await attempt(m.email, m.password, from());
    const refusedMs = performance.now() - started;
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.ok(refused.body.error.retryAfter && refused.body.error.retryAfter > 0);
    assert.ok(refusedMs < 200, `the refusal took ${refusedMs} ms`);
    // Another account from the same address is not affected.
    const other = await member();
    await signIn(api, other.email, other.password, from());
    // The window passes: the failures no longer count.
    await api.db('sign_in_failures').where({ email: m.email }).update({ at: api.db.raw("now() - interval '16 minutes'") });
    await signIn(api, m.email, m.password, from());
    const audit = await api.db('audit_events').where({ action: 'signInFailed', actor_email: m.email, outcome: 'rate_limited' });
    assert.equal(audit.length, 1);
  });

  it('a success clears the account\'s own count', async () => {
    const m = await member();
    for (let i = 0; i < 2; i++) await attempt(m.email, `wrong ${i}`, from());
    await signIn(api, m.email, m.password, from());
    for (let i = 0; i < 2; i++) assert.equal((await attempt(m.email, `wrong again ${i}`, from())).status, 401);
    await signIn(api, m.email, m.password, from());
  });

  it('past SIGN_IN_ATTEMPTS_PER_ADDRESS failures the address is refused (any e-mail); a success does not reset it; other addresses go on', async () => {
    const m = await member();
    const address = from();
    for (let i = 0; i < 5; i++) assert.equal((await attempt(`guess-${i}@people.test`, 'guess', address)).status, 401);
    await signIn(api, m.email, m.password, address);
    assert.equal((await attempt('guess-5@people.test', 'guess', address)).status, 401);
    const refused = await attempt(m.email, m.password, address);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    await signIn(api, m.email, m.password, from());
  });

  it('a reset request answers 202 the same whether or not the e-mail is known, and mails a link only to a member', async () => {
    const m = await member();
    const known = await call(api.baseURL, 'POST', '/v1/auth/password/reset', { body: { email: m.email }, headers: from() });
    const unknown = await call(api.baseURL, 'POST', '/v1/auth/password/reset', { body: { email: 'stranger@people.test' }, headers: from() });
    assert.equal(known.status, 202);
    assert.deepEqual(unknown, { ...known, headers: unknown.headers });
    const mail = await smtp.mailTo(m.email);
    assert.match(mail.text, /Reset your Hosted Agents password/);
    assert.ok(linkInMail(mail));
    assert.equal(smtp.received.filter((r) => r.to.includes('stranger@people.test')).length, 0);
  });

  it('the reset link from the mail sets a new password once, ends the old sessions and signs in; a second use is 400 invalid_link', async () => {
    const m = await member();
    const before = await signIn(api, m.email, m.password, from());
    assert.equal((await call(api.baseURL, 'POST', '/v1/auth/password/reset', { body: { email: m.email }, headers: from() })).status, 202);
    const path = linkPath(linkInMail(await smtp.mailTo(m.email)));
    const page = await fetch(`${api.baseURL}${path}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Set a new password/);
    assert.match(html, /<form method="post">/);
    // Showing the page uses nothing (a mail scanner follows links): the link still works.
    const short = await call<ErrorJson>(api.baseURL, 'POST', path, { body: { password: 'too short' } });
    assert.equal(short.status, 400);
    assert.match(short.body.error.message, /^body\.password/);
    const used = await call<{ member: { id: string }; csrfToken: string }>(api.baseURL, 'POST', path, { body: { password: 'the new long password' } });
    assert.equal(used.status, 200);
    assert.equal(used.body.member.id, m.memberId);
    const after = { cookie: sessionCookieOf(used)!, csrfToken: used.body.csrfToken };
    assert.equal((await asBrowser(api, after, 'GET', '/v1/session')).status, 200);
    assert.equal((await asBrowser(api, before, 'GET', '/v1/session')).status, 401, 'the session from before the reset ended');
    assert.equal((await attempt(m.email, m.password, from())).status, 401);
    await signIn(api, m.email, 'the new long password', from());
    const again = await call<ErrorJson>(api.baseURL, 'POST', path, { body: { password: 'yet another long password' } });
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, 'invalid_link');
    assert.equal((await fetch(`${api.baseURL}${path}`)).status, 400);
    const actions = (await api.db('audit_events').where({ workspace_id: m.workspace.id }).orderBy('seq').select('action')).map((r: { action: string }) => r.action);
    assert.deepEqual(actions, ['signIn', 'passwordResetRequested', 'passwordReset', 'signIn', 'signInFailed', 'signIn']);
  });

  it('an expired reset link is 400 invalid_link and changes nothing', async () => {
    const m = await member();
    const link = await api.repos.memberLinks.create({ kind: 'reset', workspaceId: m.workspace.id, email: m.email, ttlMs: 60_000 });
    const url = `/v1/auth/links/${link.token}`;
    await api.db('member_links').where({ workspace_id: m.workspace.id }).update({ expires_at: api.db.raw("now() - interval '1 second'") });
    const res = await call<ErrorJson>(api.baseURL, 'POST', url, { body: { password: 'the new long password' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_link');
    const page = await fetch(`${api.baseURL}${url}`);
    assert.equal(page.status, 400);
    assert.match(await page.text(), /cannot be used/);
    await signIn(api, m.email, m.password, from());
  });

  it('the page\'s form signs in and answers a page; a form posted from another site is refused and the link still works', async () => {
    const m = await member();
    const link = await api.repos.memberLinks.create({ kind: 'reset', workspaceId: m.workspace.id, email: m.email, ttlMs: 60_000 });
    const path = `/v1/auth/links/${link.token}`;
    const form = (origin: string) =>
      fetch(`${api.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams({ password: 'a form password 123' }).toString() });
    const crossSite = await form('https://evil.example');
    assert.equal(crossSite.status, 403, await crossSite.clone().text());
    assert.match(await crossSite.text(), /only be sent from its own page/);
    const res = await form(api.baseURL);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await res.text(), /Signed in/);
    assert.ok(sessionCookieOf(res));
    await signIn(api, m.email, 'a form password 123', from());
  });
});
