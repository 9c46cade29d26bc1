import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { endlessTurn, newConversation, openStream, trickleUpload } from '../support/limits';

describe('limits: a request body must arrive within REQUEST_TIMEOUT_MS', () => {
  const api = useTestApi(() => ({ config: { ...fixture().config, REQUEST_TIMEOUT_MS: 1000, SSE_KEEPALIVE_MS: 200 } }));

  it('a trickling upload is cut with 408 while an event stream outlives the timeout', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const { agentId, conversationId } = await newConversation(api, apiKey);
    const stream = await openStream(api, apiKey, await endlessTurn(api, workspace.id, conversationId));
    assert.equal(stream.status, 200);
    try {
      const started = Date.now();
      const slow = trickleUpload(api.baseURL, `/v1/agents/${agentId}/knowledge/slow.txt`, apiKey, { totalBytes: 1000, everyMs: 100 });
      const answer = await Promise.race([slow.answer, new Promise<'none'>((r) => setTimeout(() => r('none'), 10_000))]);
      assert.notEqual(answer, 'none', 'the trickling upload was still open after 10 s');
      if (answer !== 'none') assert.equal(answer.status, 408, answer.body);
      const cutAfter = Date.now() - started;
      assert.ok(cutAfter >= 900, `cut after ${cutAfter} ms, before the timeout`);
      assert.equal(await api.db('files').where({ workspace_id: workspace.id }).count<{ count: string }[]>({ count: '*' }).first().then((r) => Number(r?.count)), 0);

      // The stream opened before the upload is still delivering (keepalives) well past the timeout.
      const before = stream.received();
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(stream.received() > before, 'the event stream stopped delivering');
    } finally {
      stream.close();
    }
  });
});
