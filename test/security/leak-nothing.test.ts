import assert from 'node:assert/strict';
import type { Config } from '../../config/env';
import { Service, type TurnEvent } from '../../sdk/src';
import { startTestApi } from '../support/api';
import { capturingLogger } from '../support/capture-log';
import { fixture } from '../support/fixture';
import { useIsolatedStack } from '../support/isolated-stack';

const PROVIDER_SECRET = 'Incorrect API key provided: sk-proj-abc123XYZ (key id key_7f3e)';

describe('Messages that leak nothing', function () {
  this.timeout(60_000);

  describe('to clients and visitors', () => {
    const log = capturingLogger();
    const stack = useIsolatedStack({ model: 'openai', worker: 'inline', api: () => ({ logger: log.logger }) });
    const { api, model } = stack;
    let ws: Service;
    let apiKey: string;

    before(async () => {
      ({ ws, apiKey } = await stack.workspace(100));
    });

    it("a provider's error body is not in the turn's error event: a plain message naming the turn", async () => {
      const conversation = await (await ws.agents.create({ name: 'Refused' })).start();
      model.enqueue({ status: 401, message: PROVIDER_SECRET });
      const events: TurnEvent[] = [];
      for await (const e of conversation.ask('hello')) events.push(e);
      const turnId = events[0]?.type === 'start' ? events[0].turnId : '';
      const last = events.at(-1);
      assert.ok(last?.type === 'error', JSON.stringify(events));
      assert.equal(last.message, `the model refused the request (turn ${turnId})`);
      const replay = await fetch(`${api.baseURL}/v1/turns/${turnId}/events`, { headers: { authorization: `Bearer ${apiKey}` } });
      assert.equal(replay.status, 200);
      const text = await replay.text();
      assert.match(text, /the model refused the request/);
      for (const leak of ['sk-proj', 'key_7f3e', 'Incorrect API key']) assert.ok(!JSON.stringify(events).includes(leak) && !text.includes(leak), leak);
    });

    it('signed-file and webhook tokens do not appear in the access log', async () => {
      const conversation = await (await ws.agents.create({ name: 'Files' })).start();
      await conversation.writeFile('a.txt', 'hello');
      const url = await conversation.fileUrl('a.txt');
      assert.equal((await fetch(url)).status, 200);
      const token = url.split('/v1/files/')[1]!;
      await fetch(`${api.baseURL}/v1/hooks/whk_secret_token_123456`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      const logged = log.text();
      assert.match(logged, /"path":"\/v1\/files\/\[redacted\]"/);
      assert.match(logged, /"path":"\/v1\/hooks\/\[redacted\]"/);
      assert.ok(!logged.includes(token), 'the signed token is not logged');
      assert.ok(!logged.includes('whk_secret_token_123456'), 'the webhook token is not logged');
    });
  });

  describe('engine failures', () => {
    it('a Temporal failure at ask answers 503 with a plain message and the request id; the gRPC detail only in the log', async () => {
      const log = capturingLogger();
      const api = await startTestApi({ logger: log.logger });
      try {
        const { apiKey } = await api.newWorkspace({ credits: 100 });
        const ws = new Service({ apiKey, baseURL: api.baseURL });
        const conversation = await (await ws.agents.create({ name: 'Engine' })).start();
        // The API's Temporal connection is gone: starting the turn fails in the client.
        await api.temporal.connection.close();
        const res = await fetch(`${api.baseURL}/v1/conversations/${conversation.id}/turns`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ text: 'hello' }),
        });
        const requestId = res.headers.get('x-request-id') ?? '';
        const body = (await res.json()) as { error: { code: string; message: string } };
        assert.equal(res.status, 503, JSON.stringify(body));
        assert.equal(body.error.code, 'temporal_unavailable');
        assert.equal(body.error.message, `the turn could not be started; try again shortly (request ${requestId})`);
        assert.match(log.text(), /the turn could not be started/);
      } finally {
        await api.stop().catch(() => undefined);
      }
    });
  });

  describe('TRUST_PROXY', () => {
    async function fileUrlVia(config: Config) {
      const api = await startTestApi({ config });
      try {
        const { apiKey } = await api.newWorkspace();
        const conversation = await (await new Service({ apiKey, baseURL: api.baseURL }).agents.create({ name: 'Links' })).start();
        await conversation.writeFile('a.txt', 'x');
        const res = await fetch(`${api.baseURL}/v1/conversations/${conversation.id}/file-urls`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
          body: JSON.stringify({ path: 'a.txt' }),
        });
        return { base: api.baseURL, url: ((await res.json()) as { url: string }).url };
      } finally {
        await api.stop();
      }
    }

    it('is off by default: X-Forwarded-Host/-Proto do not choose the host of the links the API hands out', async () => {
      assert.equal(fixture().config.TRUST_PROXY, false);
      const { base, url } = await fileUrlVia(fixture().config);
      assert.ok(url.startsWith(`${base}/v1/files/`), url);
      const trusted = await fileUrlVia({ ...fixture().config, TRUST_PROXY: true });
      assert.ok(trusted.url.startsWith('https://evil.example/v1/files/'), 'believed behind a proxy');
    });
  });
});
