import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { randomToken } from '../../domain/ids';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../infra/payload-codec';
import { startTestApi, type TestApi, useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { historyPayloads, historyText, type WirePayload } from '../support/history';
import { call } from '../../harness/http';
import { collectTurn } from '../support/sse';
import { isolatedConfig, isolatedEnv, startInProcessWorker } from '../support/workers';

const metadataText = (p: WirePayload, key: string) => (p.metadata[key] === undefined ? undefined : Buffer.from(p.metadata[key], 'base64').toString('utf8'));

async function newConversation(baseURL: string, apiKey: string): Promise<string> {
  const agent = await call<{ id: string }>(baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Codec' } });
  const conv = await call<{ id: string }>(baseURL, 'POST', `/v1/agents/${agent.body.id}/conversations`, { apiKey, body: {} });
  assert.equal(conv.status, 201, JSON.stringify(conv.body));
  return conv.body.id;
}

/** Runs a turn to its end; its id and reply. */
async function turn(baseURL: string, apiKey: string, conversationId: string, text: string): Promise<{ turnId: string; reply: string }> {
  const res = await collectTurn(`${baseURL}/v1/conversations/${conversationId}/turns`, { method: 'POST', apiKey, body: { text } }, 60_000);
  const first = res.events[0]?.event;
  const last = res.events.at(-1)?.event;
  assert.ok(first?.type === 'start', JSON.stringify(res));
  assert.ok(last?.type === 'done', JSON.stringify(last));
  return { turnId: first.turnId, reply: last.reply };
}

describe('Temporal payload encryption (PAYLOAD_KEY codec and codec endpoint)', () => {
  const codecToken = randomToken(40);
  const uiOrigin = 'http://localhost:8233';
  const api = useTestApi(() => ({ config: { ...fixture().config, CODEC_TOKEN: codecToken, CODEC_CORS_ORIGIN: uiOrigin } }));

  it("a turn's history holds no plaintext of the user's message or the reply; the codec endpoint decodes it back for its token only", async () => {
    const { apiKey } = await api.newWorkspace({ credits: 100 });
    const conversationId = await newConversation(api.baseURL, apiKey);
    const marker = `zebra-${randomToken(12)}`;
    const { turnId, reply } = await turn(api.baseURL, apiKey, conversationId, `my account is ${marker}`);
    assert.ok(reply.includes(marker), 'the offline model echoes the message, so the reply carries it too');

    const workflowId = `turn-${turnId}`;
    const raw = await historyText(api.temporal, workflowId);
    assert.ok(!raw.includes(marker), "the user's text is not in the history");
    assert.ok(!raw.includes(reply), 'the reply is not in the history');
    assert.ok(!raw.includes('offline model'), 'no model output is in the history');

    const payloads = await historyPayloads(api.temporal, workflowId);
    const encrypted = payloads.filter((p) => metadataText(p, 'encoding') === ENCRYPTED_ENCODING);
    assert.ok(encrypted.length >= 3, `${encrypted.length} encrypted payloads of ${payloads.length}`);
    for (const p of encrypted) assert.match(metadataText(p, KEY_ID_METADATA) ?? '', /^[0-9a-f]{8}$/);

    const decodePath = '/v1/codec/decode';
    const none = await call<{ error: { code: string } }>(api.baseURL, 'POST', decodePath, { body: { payloads: encrypted } });
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'invalid_codec_token');
    const wrong = await call(api.baseURL, 'POST', decodePath, { body: { payloads: encrypted }, headers: { authorization: `Bearer ${randomToken(40)}` } });
    assert.equal(wrong.status, 401);
    const uiNoToken = await call(api.baseURL, 'POST', decodePath, { body: { payloads: encrypted }, headers: { origin: uiOrigin } });
    assert.equal(uiNoToken.status, 401, "outside `start`, the UI's origin from loopback still needs the token");
    const workspaceKey = await call(api.baseURL, 'POST', decodePath, { apiKey, body: { payloads: encrypted } });
    assert.equal(workspaceKey.status, 401, 'a workspace API key does not open the codec endpoint');

    const auth = { authorization: `Bearer ${codecToken}`, origin: uiOrigin, 'x-namespace': 'default' };
    const decoded = await call<{ payloads: WirePayload[] }>(api.baseURL, 'POST', decodePath, { body: { payloads: encrypted }, headers: auth });
    assert.equal(decoded.status, 200, JSON.stringify(decoded.body));
    assert.equal(decoded.headers.get('access-control-allow-origin'), uiOrigin);
    assert.equal(decoded.body.payloads.length, encrypted.length);
    const plain = decoded.body.payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('\n');
    assert.ok(plain.includes(reply), 'the decoded history carries the reply');
    assert.ok(decoded.body.payloads.every((p) => metadataText(p, 'encoding') !== ENCRYPTED_ENCODING));

    const reencoded = await call<{ payloads: WirePayload[] }>(api.baseURL, 'POST', '/v1/codec/encode', { body: decoded.body, headers: auth });
    assert.equal(reencoded.status, 200);
    assert.ok(reencoded.body.payloads.every((p) => metadataText(p, 'encoding') === ENCRYPTED_ENCODING));

    const preflight = await fetch(`${api.baseURL}${decodePath}`, {
      method: 'OPTIONS',
      headers: { origin: uiOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-namespace' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), uiOrigin);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    const foreign = await fetch(`${api.baseURL}${decodePath}`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(foreign.headers.get('access-control-allow-origin'), null, 'no other origin is allowed');
  });

  it('is off (404) without CODEC_TOKEN', async () => {
    const off = await startTestApi();
    try {
      const res = await call(off.baseURL, 'POST', '/v1/codec/decode', { body: { payloads: [] }, headers: { authorization: 'Bearer x' } });
      assert.equal(res.status, 404);
    } finally {
      await off.stop();
    }
  });

  it('after a rotation, a worker whose ring holds the new and the previous key runs a turn whose input was sealed under the previous key', async () => {
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('base64');
    const env = isolatedEnv({ PAYLOAD_KEY: oldKey });
    // The API still has only the old key: it starts the turn, sealing the workflow's input under it.
    const before: TestApi = await startTestApi({ config: isolatedConfig(env) });
    let worker: { stop(): Promise<void> } | undefined;
    try {
      const { apiKey } = await before.newWorkspace({ credits: 100 });
      const conversationId = await newConversation(before.baseURL, apiKey);
      const running = turn(before.baseURL, apiKey, conversationId, 'rotate me');
      // No worker polls these task queues yet: the input waits in history, under the old key.
      await new Promise((r) => setTimeout(r, 1000));
      worker = await startInProcessWorker(isolatedConfig({ ...env, PAYLOAD_KEY: `k2:${newKey},k1:${oldKey}` }));
      const { turnId } = await running;

      const payloads = await historyPayloads(before.temporal, `turn-${turnId}`);
      const keyIds = new Set(payloads.map((p) => metadataText(p, KEY_ID_METADATA)).filter((id) => id !== undefined));
      assert.equal(keyIds.size, 2, `payloads under both keys: ${[...keyIds].join(', ')}`);
    } finally {
      await worker?.stop();
      await before.stop();
    }
  });
});
