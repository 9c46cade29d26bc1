import assert from 'node:assert/strict';
import { z } from 'zod';
import { runCli } from '../../harness/cli';
import { call, type ErrorJson } from '../../harness/http';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { asBrowser, linkPath, sessionCookieOf } from '../support/people';

const createdWithOwner = z
  .object({
    workspace: z.object({ id: z.string() }).passthrough(),
    apiKey: z.string(),
    owner: z.object({ memberId: z.string(), email: z.string(), signInLink: z.string(), expiresAt: z.string() }).strict(),
  })
  .strict();

/**
 * The operator's way in (issue 50, item 2): `hosted-agents workspace create --owner EMAIL` makes the
 * owner and prints a one-time sign-in link; it signs the owner in once, who then sets a password.
 * (`npm start` prints the dev owner's link the same way: test/ops/npm-start.test.ts.)
 */
describe('the owner\'s sign-in link', function () {
  this.timeout(120_000);
  const api = useTestApi();

  it('workspace create --owner prints a link that signs the owner in once; they then set a first password', async () => {
    const run = await runCli(['workspace', 'create', '--name', 'Operated', '--credits', '5', '--owner', 'Boss@People.test', '--json'], { DATABASE_URL: fixture().databaseUrl });
    assert.equal(run.code, 0, run.stderr);
    const out = createdWithOwner.parse(JSON.parse(run.stdout));
    assert.equal(out.owner.email, 'boss@people.test');
    const path = linkPath(out.owner.signInLink);
    const page = await (await fetch(`${api.baseURL}${path}`)).text();
    assert.match(page, /Sign in to <strong>Operated<\/strong> as <strong>boss@people.test<\/strong>/);

    const used = await call<{ member: { id: string; role: string }; csrfToken: string }>(api.baseURL, 'POST', path, { body: {} });
    assert.equal(used.status, 200);
    assert.deepEqual([used.body.member.id, used.body.member.role], [out.owner.memberId, 'owner']);
    const again = await call<ErrorJson>(api.baseURL, 'POST', path, { body: {} });
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, 'invalid_link');

    const browser = { cookie: sessionCookieOf(used)!, csrfToken: used.body.csrfToken };
    assert.equal((await asBrowser(api, browser, 'PUT', '/v1/session/password', { body: { newPassword: 'the owner picks this one' } })).status, 204);
    const signedIn = await call(api.baseURL, 'POST', '/v1/auth/password', { body: { email: 'boss@people.test', password: 'the owner picks this one' } });
    assert.equal(signedIn.status, 200);
    // Now that there is a password, changing it needs it.
    const refused = await asBrowser<ErrorJson>(api, browser, 'PUT', '/v1/session/password', { body: { newPassword: 'someone else picks this' } });
    assert.equal(refused.status, 401);
  });

  it('a bad --owner is a usage error (exit 2) and creates nothing', async () => {
    const run = await runCli(['workspace', 'create', '--name', 'Nope', '--credits', '0', '--owner', 'not-an-email'], { DATABASE_URL: fixture().databaseUrl });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--owner: an e-mail address/);
    assert.equal((await api.db('workspaces').where({ name: 'Nope' })).length, 0);
  });
});
