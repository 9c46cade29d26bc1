import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../../harness/http';
import { assertRateLimited, endlessTurn, newConversation, openStream, trickleUpload } from '../support/limits';
import { waitFor } from '../support/wait';
import { LeaseKeeper } from '../../api/limits/leases';
import { VISITOR_BUSY } from '../../domain/visitor-events';
import { freelancer } from '../support/publishing';

describe('limits: streams, uploads and running turns at once', () => {
  const api = useTestApi(() => ({ config: { ...fixture().config, KEY_STREAMS_MAX: 2, KEY_UPLOADS_MAX: 1, WORKSPACE_RUNNING_TURNS_MAX: 2 } }));

  it('a key holds at most KEY_STREAMS_MAX event streams; a closed one frees its place; another key is unaffected', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const { conversationId } = await newConversation(api, apiKey);
    const turnId = await endlessTurn(api, workspace.id, conversationId);
    const first = await openStream(api, apiKey, turnId);
    const second = await openStream(api, apiKey, turnId);
    try {
      assert.deepEqual([first.status, second.status], [200, 200]);
      const third = await openStream(api, apiKey, turnId);
      assertRateLimited(third.error!, 'third stream');

      // Another workspace's key streams its own turn meanwhile.
      const other = await api.newWorkspace();
      const otherTurn = await endlessTurn(api, other.workspace.id, (await newConversation(api, other.apiKey)).conversationId);
      const theirs = await openStream(api, other.apiKey, otherTurn);
      assert.equal(theirs.status, 200);
      theirs.close();

      first.close();
      const again = await waitFor('a place after closing a stream', () => openStream(api, apiKey, turnId), (s) => s.status === 200, 10_000);
      again.close();
    } finally {
      first.close();
      second.close();
    }
  });

  it('an ask past KEY_STREAMS_MAX is refused before any turn starts', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const { conversationId } = await newConversation(api, apiKey);
    const turnId = await endlessTurn(api, workspace.id, conversationId);
    const held = [await openStream(api, apiKey, turnId), await openStream(api, apiKey, turnId)];
    try {
      const other = await newConversation(api, apiKey);
      const ask = await call<ErrorJson>(api.baseURL, 'POST', `/v1/conversations/${other.conversationId}/turns`, { apiKey, body: { text: 'hello' } });
      assertRateLimited(ask, 'ask');
      const messages = await call<{ data: unknown[] }>(api.baseURL, 'GET', `/v1/conversations/${other.conversationId}/messages`, { apiKey });
      assert.deepEqual(messages.body.data, [], 'nothing of the refused ask is written');
    } finally {
      for (const s of held) s.close();
    }
  });

  it('a workspace runs at most WORKSPACE_RUNNING_TURNS_MAX turns at once; another workspace is unaffected', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    for (let i = 0; i < 2; i++) await endlessTurn(api, workspace.id, (await newConversation(api, apiKey)).conversationId);
    const { conversationId } = await newConversation(api, apiKey);
    const ask = await call<ErrorJson>(api.baseURL, 'POST', `/v1/conversations/${conversationId}/turns`, { apiKey, body: { text: 'hello' } });
    assertRateLimited(ask, 'third running turn');
    assert.match(ask.body.error.message, /2 turns running/);
    // A visitor of its deployed agent is refused too, without the workspace's count.
    const agent = await freelancer(api.baseURL, apiKey);
    const [v1] = await agent.versionIds();
    assert.equal((await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } })).status, 200);
    const token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agent.agentId}/public-token`, { apiKey })).body.token;
    const visitor = await call<ErrorJson>(api.baseURL, 'POST', '/v1/public/chat', { headers: { authorization: `Bearer ${token}` }, body: { content: 'hello', user: { id: 'v' } } });
    assertRateLimited(visitor, 'a visitor at the running-turns limit');
    assert.equal(visitor.body.error.message, VISITOR_BUSY);
    assert.equal(await api.db('turns').where({ conversation_id: conversationId }).count<{ count: string }[]>({ count: '*' }).first().then((r) => Number(r?.count)), 0);

    const other = await api.newWorkspace();
    const theirs = await newConversation(api, other.apiKey);
    const controller = new AbortController();
    const res = await fetch(`${api.baseURL}/v1/conversations/${theirs.conversationId}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-turn-id') ?? '', /^trn_/);
    controller.abort();
  });

  it('a key has at most KEY_UPLOADS_MAX uploads in flight; another key is unaffected; a finished upload frees its place', async () => {
    const { apiKey, keyId } = await api.newWorkspace();
    const { agentId } = await newConversation(api, apiKey);
    const slow = trickleUpload(api.baseURL, `/v1/agents/${agentId}/knowledge/slow.txt`, apiKey, { totalBytes: 100, everyMs: 100 });
    try {
      // The slow upload holds the key's one place once the server has taken its lease.
      await waitFor('the slow upload holding a lease', () => api.db('leases').where({ holder: keyId, kind: 'uploads' }).pluck('id'), (ids) => ids.length === 1, 10_000);
      const refused = await call<ErrorJson>(api.baseURL, 'PUT', `/v1/agents/${agentId}/knowledge/fast.txt`, { apiKey, rawBody: 'fast', headers: { 'content-type': 'text/plain' } });
      assertRateLimited(refused, 'second upload');

      const other = await api.newWorkspace();
      const theirs = await newConversation(api, other.apiKey);
      const put = await call(api.baseURL, 'PUT', `/v1/agents/${theirs.agentId}/knowledge/fast.txt`, { apiKey: other.apiKey, rawBody: 'fast', headers: { 'content-type': 'text/plain' } });
      assert.equal(put.status, 200);
    } finally {
      slow.finish();
    }
    assert.equal((await slow.answer).status, 200);
    const after = await waitFor(
      'an upload after the slow one finished',
      () => call(api.baseURL, 'PUT', `/v1/agents/${agentId}/knowledge/fast.txt`, { apiKey, rawBody: 'fast', headers: { 'content-type': 'text/plain' } }),
      (r) => r.status === 200,
      10_000,
    );
    assert.equal(after.status, 200);
  });

  it('opens of one process racing for the places of a key each get one while places are free: none is refused below the limit', async () => {
    const keeper = new LeaseKeeper(api.repos.leases, () => undefined);
    for (let round = 0; round < 5; round++) {
      const holder = `keeper-${round}-${Date.now()}`;
      const releases = await Promise.all(Array.from({ length: 60 }, () => keeper.take(holder, 'uploads', 60)));
      assert.equal(releases.filter((r) => r !== undefined).length, 60, `round ${round}: all 60 places taken by 60 opens`);
      assert.equal(await keeper.take(holder, 'uploads', 60), undefined, 'the 61st is refused');
      for (const release of releases) release?.();
    }
  });

  it('leases taken in a race never pass the limit, and expired ones are taken over', async () => {
    const holder = `race-${Date.now()}`;
    const taken = await Promise.all(Array.from({ length: 20 }, () => api.repos.leases.acquire({ holder, kind: 'streams', limit: 3, ttlSeconds: 60 })));
    assert.equal(taken.filter((id) => id !== undefined).length, 3);
    await api.db('leases').where({ holder }).update({ expires_at: api.db.raw(`now() - interval '1 second'`) });
    const after = await Promise.all(Array.from({ length: 5 }, () => api.repos.leases.acquire({ holder, kind: 'streams', limit: 3, ttlSeconds: 60 })));
    assert.equal(after.filter((id) => id !== undefined).length, 3);
  });
});
