import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../../harness/http';
import { newConversation } from '../support/limits';

describe('limits: storage quota per workspace', () => {
  const api = useTestApi(() => ({ config: { ...fixture().config, WORKSPACE_STORAGE_BYTES: 1000 } }));

  const put = (apiKey: string, path: string, bytes: number) =>
    call<ErrorJson>(api.baseURL, 'PUT', path, { apiKey, rawBody: 'x'.repeat(bytes), headers: { 'content-type': 'text/plain' } });

  it('knowledge, conversation and project files share the quota; past it is 413 storage_quota_exceeded and nothing is written', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const { agentId, conversationId } = await newConversation(api, apiKey);
    assert.equal((await put(apiKey, `/v1/agents/${agentId}/knowledge/a.txt`, 600)).status, 200);
    assert.equal((await put(apiKey, `/v1/conversations/${conversationId}/files/b.txt`, 300)).status, 200);

    const project = await call<{ id: string }>(api.baseURL, 'POST', '/v1/projects', { apiKey, body: { name: 'P' } });
    const over = await put(apiKey, `/v1/projects/${project.body.id}/files/c.txt`, 101);
    assert.equal(over.status, 413, JSON.stringify(over.body));
    assert.equal(over.body.error.code, 'storage_quota_exceeded');
    assert.match(over.body.error.message, /stores 900 of its 1000 bytes/);
    assert.equal((await put(apiKey, `/v1/conversations/${conversationId}/files/c.txt`, 101)).status, 413);
    assert.deepEqual(await api.db('files').where({ workspace_id: workspace.id }).orderBy('path').pluck('path'), ['a.txt', 'b.txt']);

    // Exactly up to the quota fits, and replacing a file counts its new size only.
    assert.equal((await put(apiKey, `/v1/projects/${project.body.id}/files/c.txt`, 100)).status, 200);
    assert.equal((await put(apiKey, `/v1/agents/${agentId}/knowledge/a.txt`, 500)).status, 200);
    assert.equal((await put(apiKey, `/v1/agents/${agentId}/knowledge/a.txt`, 600)).status, 200);
    assert.equal((await put(apiKey, `/v1/agents/${agentId}/knowledge/a.txt`, 601)).status, 413);
  });

  it('attachments count too: an ask whose attachment does not fit is 413 and writes nothing', async () => {
    const { apiKey } = await api.newWorkspace();
    const { agentId, conversationId } = await newConversation(api, apiKey);
    assert.equal((await put(apiKey, `/v1/agents/${agentId}/knowledge/a.txt`, 900)).status, 200);
    const ask = await call<ErrorJson>(api.baseURL, 'POST', `/v1/conversations/${conversationId}/turns`, {
      apiKey,
      body: { text: 'see attached', attachments: [{ kind: 'file', name: 'notes.txt', mimeType: 'text/plain', data: Buffer.from('y'.repeat(200)).toString('base64') }] },
    });
    assert.equal(ask.status, 413, JSON.stringify(ask.body));
    assert.equal(ask.body.error.code, 'storage_quota_exceeded');
    const messages = await call<{ data: unknown[] }>(api.baseURL, 'GET', `/v1/conversations/${conversationId}/messages`, { apiKey });
    assert.deepEqual(messages.body.data, []);
  });

  it("one workspace's full quota does not touch another's", async () => {
    const full = await api.newWorkspace();
    const { agentId } = await newConversation(api, full.apiKey);
    assert.equal((await put(full.apiKey, `/v1/agents/${agentId}/knowledge/a.txt`, 1000)).status, 200);
    assert.equal((await put(full.apiKey, `/v1/agents/${agentId}/knowledge/b.txt`, 1)).status, 413);
    const other = await api.newWorkspace();
    const theirs = await newConversation(api, other.apiKey);
    assert.equal((await put(other.apiKey, `/v1/agents/${theirs.agentId}/knowledge/a.txt`, 1000)).status, 200);
  });
});
