import assert from 'node:assert/strict';
import type { Role } from '../../domain/roles';
import { newId } from '../../domain/ids';
import { useTestApi } from '../support/api';

/**
 * A viewer is read-only but for the teammate (project) conversations they start themselves
 * (issue 50, item 1; domain/conversation-access.ts): they list and read only those, and any other
 * conversation answers as if it did not exist. Reviewers read every conversation; changing one
 * someone else started needs a builder.
 */
describe('who may use which conversation', function () {
  this.timeout(60_000);
  const api = useTestApi();
  let ownerKey = '';
  let workspaceId = '';
  let projectId = '';
  let agentConversationId = '';
  let ownersProjectConversationId = '';

  async function member(role: Role) {
    const accountId = newId('account');
    const memberId = newId('member');
    await api.db('accounts').insert({ id: accountId, email: `${accountId}@example.test` });
    await api.db('members').insert({ id: memberId, workspace_id: workspaceId, account_id: accountId, role });
    const session = await api.repos.sessions.create({ memberId, workspaceId, absoluteMs: 3_600_000 });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${api.baseURL}${path}`, {
        method,
        headers: { cookie: `ha_session=${session.token}`, 'x-csrf-token': session.csrfToken, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    return { memberId, call };
  }

  const asOwner = (method: string, path: string, body?: unknown) =>
    fetch(`${api.baseURL}${path}`, {
      method,
      headers: { authorization: `Bearer ${ownerKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  before(async () => {
    const ws = await api.newWorkspace({ credits: 10 });
    ownerKey = ws.apiKey;
    workspaceId = ws.workspace.id;
    const agent = (await (await asOwner('POST', '/v1/agents', { name: 'Mate', role: 'teammate' })).json()) as { id: string };
    const freelancer = (await (await asOwner('POST', '/v1/agents', { name: 'Solo' })).json()) as { id: string };
    const project = (await (await asOwner('POST', '/v1/projects', { name: 'P', agents: [agent.id] })).json()) as { id: string };
    projectId = project.id;
    agentConversationId = ((await (await asOwner('POST', `/v1/agents/${freelancer.id}/conversations`, {})).json()) as { id: string }).id;
    ownersProjectConversationId = ((await (await asOwner('POST', `/v1/projects/${projectId}/conversations`, {})).json()) as { id: string }).id;
    assert.ok(agentConversationId && ownersProjectConversationId);
  });

  it('a viewer starts a teammate conversation, lists and reads only their own, and ends it', async () => {
    const viewer = await member('viewer');
    const started = await viewer.call('POST', `/v1/projects/${projectId}/conversations`, {});
    assert.equal(started.status, 201);
    const own = (await started.json()) as { id: string };
    const listed = (await (await viewer.call('GET', `/v1/projects/${projectId}/conversations`)).json()) as { data: { id: string }[] };
    assert.deepEqual(listed.data.map((c) => c.id), [own.id]);
    assert.equal((await viewer.call('GET', `/v1/conversations/${own.id}`)).status, 200);
    assert.equal((await viewer.call('GET', `/v1/conversations/${own.id}/messages`)).status, 200);
    assert.equal((await viewer.call('POST', `/v1/conversations/${own.id}/end`)).status, 204);
    const ownerList = (await (await asOwner('GET', `/v1/projects/${projectId}/conversations`)).json()) as { data: { id: string }[] };
    assert.equal(ownerList.data.length, 2, 'the owner lists every conversation of the project');
  });

  it("a viewer cannot see or change anyone else's conversation: it answers 404, as if it did not exist", async () => {
    const viewer = await member('viewer');
    for (const id of [agentConversationId, ownersProjectConversationId]) {
      for (const [method, path] of [
        ['GET', `/v1/conversations/${id}`],
        ['GET', `/v1/conversations/${id}/messages`],
        ['POST', `/v1/conversations/${id}/end`],
      ] as const) {
        const res = await viewer.call(method, path);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'conversation_not_found');
      }
    }
    assert.equal((await viewer.call('POST', `/v1/conversations/${agentConversationId}/turns`, { text: 'hi' })).status, 404);
  });

  it('a reviewer reads every conversation but changes only their own; a builder changes any', async () => {
    const reviewer = await member('reviewer');
    assert.equal((await reviewer.call('GET', `/v1/conversations/${agentConversationId}`)).status, 200);
    assert.equal((await reviewer.call('GET', `/v1/conversations/${ownersProjectConversationId}/messages`)).status, 200);
    assert.equal((await reviewer.call('POST', `/v1/conversations/${ownersProjectConversationId}/end`)).status, 404);
    const builder = await member('builder');
    assert.equal((await builder.call('POST', `/v1/conversations/${ownersProjectConversationId}/end`)).status, 204);
  });
});
