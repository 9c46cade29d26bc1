import assert from 'node:assert/strict';
import { call, type ErrorJson } from '../../harness/http';
import { useTestApi } from '../support/api';
import { addMember, asBrowser, linkPath, signIn } from '../support/people';

interface MemberJson {
  id: string;
  email: string;
  name: string;
  role: string;
  createdAt: string;
  lastSeenAt: string | null;
}

/**
 * Members and roles (issue 50, item 1): list, role changes and removal; the workspace keeps one
 * owner (409 last_owner, under concurrency too); a role change or removal ends that member's
 * sessions at once.
 */
describe('members', function () {
  this.timeout(120_000);
  const api = useTestApi();

  async function team() {
    const { workspace, apiKey } = await api.newWorkspace({ name: 'team' });
    const owner = await addMember(api, workspace.id, 'owner');
    const builder = await addMember(api, workspace.id, 'builder');
    const viewer = await addMember(api, workspace.id, 'viewer');
    return { workspace, apiKey, owner, builder, viewer, ownerBrowser: await signIn(api, owner.email, owner.password) };
  }

  it('every member sees who is in the workspace, with role and last seen', async () => {
    const t = await team();
    const viewerBrowser = await signIn(api, t.viewer.email, t.viewer.password);
    const res = await asBrowser<{ data: MemberJson[] }>(api, viewerBrowser, 'GET', '/v1/members');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((m) => [m.email, m.role]), [[t.owner.email, 'owner'], [t.builder.email, 'builder'], [t.viewer.email, 'viewer']]);
    assert.deepEqual(Object.keys(res.body.data[0]!).sort(), ['createdAt', 'email', 'id', 'lastSeenAt', 'name', 'role']);
    // Only owners change the team.
    const refused = await asBrowser<ErrorJson>(api, viewerBrowser, 'PATCH', `/v1/members/${t.builder.memberId}`, { body: { role: 'viewer' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'forbidden');
  });

  it('a role change applies at once and ends that member\'s sessions', async () => {
    const t = await team();
    const builderBrowser = await signIn(api, t.builder.email, t.builder.password);
    assert.equal((await asBrowser(api, builderBrowser, 'POST', '/v1/agents', { body: { name: 'Before' } })).status, 201);
    const res = await asBrowser<MemberJson>(api, t.ownerBrowser, 'PATCH', `/v1/members/${t.builder.memberId}`, { body: { role: 'viewer' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.role, 'viewer');
    const ended = await asBrowser<ErrorJson>(api, builderBrowser, 'GET', '/v1/agents');
    assert.equal(ended.status, 401);
    assert.equal(ended.body.error.code, 'invalid_session');
    const again = await signIn(api, t.builder.email, t.builder.password);
    assert.equal(((await asBrowser<ErrorJson>(api, again, 'POST', '/v1/agents', { body: { name: 'After' } })).body as ErrorJson).error.code, 'forbidden');
  });

  it('removal ends the member\'s sessions and membership; their account stays', async () => {
    const t = await team();
    const viewerBrowser = await signIn(api, t.viewer.email, t.viewer.password);
    assert.equal((await asBrowser(api, t.ownerBrowser, 'DELETE', `/v1/members/${t.viewer.memberId}`)).status, 204);
    const ended = await asBrowser<ErrorJson>(api, viewerBrowser, 'GET', '/v1/agents');
    assert.equal(ended.status, 401);
    assert.equal(ended.body.error.code, 'invalid_session');
    const refused = await call<ErrorJson>(api.baseURL, 'POST', '/v1/auth/password', { body: { email: t.viewer.email, password: t.viewer.password } });
    assert.equal(refused.status, 401);
    assert.ok(await api.repos.members.accountByEmail({ email: t.viewer.email }));
    const missing = await asBrowser<ErrorJson>(api, t.ownerBrowser, 'DELETE', `/v1/members/${t.viewer.memberId}`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'member_not_found');
    const audit = await api.db('audit_events').where({ workspace_id: t.workspace.id, action: 'removeMember', outcome: 'ok' }).first('targets');
    assert.equal((audit as { targets: Record<string, string> }).targets.memberId, t.viewer.memberId);
  });

  it('the last owner can be neither demoted nor removed (409 last_owner); with two owners, one can go', async () => {
    const t = await team();
    for (const [method, body] of [['PATCH', { role: 'builder' }], ['DELETE', undefined]] as const) {
      const res = await asBrowser<ErrorJson>(api, t.ownerBrowser, method, `/v1/members/${t.owner.memberId}`, { body });
      assert.equal(res.status, 409, method);
      assert.equal(res.body.error.code, 'last_owner');
      assert.match(res.body.error.message, /at least one owner/);
    }
    // Also by an owner key.
    assert.equal(((await call<ErrorJson>(api.baseURL, 'DELETE', `/v1/members/${t.owner.memberId}`, { apiKey: t.apiKey })).body as ErrorJson).error.code, 'last_owner');
    assert.equal((await asBrowser(api, t.ownerBrowser, 'PATCH', `/v1/members/${t.builder.memberId}`, { body: { role: 'owner' } })).status, 200);
    assert.equal((await asBrowser(api, t.ownerBrowser, 'PATCH', `/v1/members/${t.owner.memberId}`, { body: { role: 'builder' } })).status, 200);
    assert.equal(await api.repos.members.countOwners({ workspaceId: t.workspace.id }), 1);
  });

  it('two owners demoting each other at the same moment: exactly one succeeds, one owner remains', async () => {
    for (let round = 0; round < 3; round++) {
      const { workspace } = await api.newWorkspace({ name: 'race' });
      const a = await addMember(api, workspace.id, 'owner');
      const b = await addMember(api, workspace.id, 'owner');
      const [aBrowser, bBrowser] = await Promise.all([signIn(api, a.email, a.password), signIn(api, b.email, b.password)]);
      const results = await Promise.all([
        asBrowser(api, aBrowser, 'PATCH', `/v1/members/${b.memberId}`, { body: { role: 'viewer' } }),
        asBrowser(api, bBrowser, 'DELETE', `/v1/members/${a.memberId}`),
      ]);
      const statuses = results.map((r) => r.status);
      assert.equal(await api.repos.members.countOwners({ workspaceId: workspace.id }), 1, `round ${round}: ${statuses.join(', ')}`);
      assert.equal(statuses.filter((s) => s === 200 || s === 204).length, 1, `round ${round}: ${statuses.join(', ')}`);
    }
  });

  it('an owner makes a one-time reset link for a member; using it sets their password', async () => {
    const t = await team();
    const res = await asBrowser<{ url: string; expiresAt: string }>(api, t.ownerBrowser, 'POST', `/v1/members/${t.viewer.memberId}/reset-link`);
    assert.equal(res.status, 201);
    const minutes = (Date.parse(res.body.expiresAt) - Date.now()) / 60_000;
    assert.ok(minutes > 59 && minutes <= 60, `${minutes} minutes`);
    const used = await call(api.baseURL, 'POST', linkPath(res.body.url), { body: { password: 'set by the reset link' } });
    assert.equal(used.status, 200);
    await signIn(api, t.viewer.email, 'set by the reset link');
    const builder = await signIn(api, t.builder.email, t.builder.password);
    assert.equal(((await asBrowser<ErrorJson>(api, builder, 'POST', `/v1/members/${t.viewer.memberId}/reset-link`)).body as ErrorJson).error.code, 'forbidden');
  });

  it('a member\'s last seen time moves when their session is used', async () => {
    const t = await team();
    const before = await api.repos.members.get({ workspaceId: t.workspace.id, memberId: t.builder.memberId });
    assert.equal(before?.lastSeenAt, null);
    const browser = await signIn(api, t.builder.email, t.builder.password);
    await api.db('sessions').where({ member_id: t.builder.memberId }).update({ last_seen_at: api.db.raw("now() - interval '2 minutes'") });
    assert.equal((await asBrowser(api, browser, 'GET', '/v1/agents')).status, 200);
    const after = await api.repos.members.get({ workspaceId: t.workspace.id, memberId: t.builder.memberId });
    assert.ok(after?.lastSeenAt);
  });
});
