import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { Service, Webhook } from '../../sdk/src';
import { call, type ErrorJson } from '../../harness/http';
import { waitFor } from '../support/wait';
import { useIsolatedStack } from '../support/isolated-stack';

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/**
 * A plain receiver on 127.0.0.1 that answers each request with the next status of `statuses`
 * (the last one repeats) and records what it got.
 */
async function receiver(statuses: number[]) {
  const got: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      got.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses[Math.min(got.length, statuses.length) - 1] ?? 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/results`, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Webhook triggers: inbound URLs start runs; results are delivered signed to the trigger's `url`. */
describe('webhooks', function () {
  this.timeout(90_000);
  // Loopback receivers are allowed as tools' HTTP is (OUTBOUND_ALLOW_PRIVATE); retries are quick; payloads small.
  const stack = useIsolatedStack({
    worker: 'inline',
    env: { OUTBOUND_ALLOW_PRIVATE: '127.0.0.0/8', WEBHOOK_RETRY_INITIAL_MS: '200', WEBHOOK_BODY_LIMIT_BYTES: '4096', LOCAL_MODEL_DELAY_MS: '0' },
  });
  const { api } = stack;
  let ws: Service;

  before(async () => {
    ({ ws } = await stack.workspace(1000));
  });

  const path = (hook: Webhook) => new URL(hook.url).pathname;
  const post = (hook: Webhook | string, body: unknown, headers: Record<string, string> = {}) =>
    call<{ turnId: string; conversationId: string } & ErrorJson>(api.baseURL, 'POST', typeof hook === 'string' ? hook : path(hook), {
      ...(typeof body === 'string' ? { rawBody: body } : { body }),
      headers,
    });
  const conversations = (agentId: string) => ws.agent(agentId).conversations();
  async function webhookAgent(triggers: unknown[]) {
    const agent = await ws.agents.create({ name: 'Hooked', triggers: triggers as never });
    const hooks = await agent.webhooks();
    return { agent, hooks };
  }
  /** The run workflows of a conversation, as Temporal lists them. */
  async function runs(conversationId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const w of api.temporal.workflow.list({ query: `ConversationId = "${conversationId}" AND WorkflowType = "webhookRunWorkflow"` })) ids.push(w.workflowId);
    return ids;
  }

  it('an inbound POST starts exactly one run whose turn sees the payload; a repeated Idempotency-Key starts no other', async () => {
    const { agent, hooks } = await webhookAgent([{ kind: 'chat' }, { kind: 'webhook', message: 'Summarise the order' }]);
    assert.equal(hooks.length, 1);
    assert.equal(hooks[0]!.triggerIndex, 1);
    assert.equal(hooks[0]!.signingSecret, false);
    assert.match(hooks[0]!.url, /^http:\/\/127\.0\.0\.1:\d+\/v1\/hooks\/wh_[0-9a-z]{32}$/);
    assert.deepEqual(await ws.agent(agent.id).webhooks(), hooks, 'the same URL on every read');

    const payload = { order: 42, item: 'tea' };
    const first = await post(hooks[0]!, payload, { 'idempotency-key': 'order-42' });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.match(first.body.turnId, /^trn_/);
    const again = await post(hooks[0]!, { order: 42, item: 'coffee' }, { 'idempotency-key': 'order-42' });
    assert.equal(again.status, 202);
    assert.deepEqual(again.body, first.body, 'the repeat answers the first run');

    const messages = await waitFor(
      'the reply',
      () => ws.agent(agent.id).conversation(first.body.conversationId).messages(),
      (m) => m.length === 2,
    );
    assert.equal(messages[0]!.content, `Summarise the order\n\nWebhook payload (JSON):\n${JSON.stringify(payload, null, 2)}`);
    assert.match(messages[1]!.content, /^\(offline model\) You said: Summarise the order[\s\S]*"item": "tea"/, 'the model read the payload');
    const list = await conversations(agent.id);
    assert.deepEqual(list.map((c) => [c.id, c.trigger]), [[first.body.conversationId, { kind: 'webhook', index: 1 }]], 'exactly one run');
    assert.equal((await api.db('turns').where({ id: first.body.turnId }).first('status')).status, 'done');
    assert.equal((await waitFor('the run listed', () => runs(first.body.conversationId), (r) => r.length === 1)).length, 1);

    // Without a key, each request is a run of its own; `webhook-id` (Standard Webhooks senders) counts as a key.
    const a = await post(hooks[0]!, [1, 2], { 'webhook-id': 'msg_1' });
    const b = await post(hooks[0]!, [1, 2], { 'webhook-id': 'msg_1' });
    assert.deepEqual([a.status, b.body.turnId], [202, a.body.turnId]);
    await waitFor('both runs listed', () => conversations(agent.id), (l) => l.length === 2);

    // Three requests with one key at once: one run, and every answer names it.
    const racing = await Promise.all([1, 2, 3].map(() => post(hooks[0]!, { burst: true }, { 'idempotency-key': 'burst' })));
    assert.deepEqual(racing.map((r) => r.status), [202, 202, 202], JSON.stringify(racing.map((r) => r.body)));
    assert.equal(new Set(racing.map((r) => r.body.turnId)).size, 1);
    await waitFor('the burst run done', () => api.db('turns').where({ id: racing[0]!.body.turnId }).first('status'), (t) => t?.status === 'done');
    assert.equal((await conversations(agent.id)).length, 3);
  });

  it('bad JSON, a non-JSON body, NUL in a string and an oversized body are refused and start no run', async () => {
    const { agent, hooks } = await webhookAgent([{ kind: 'webhook' }]);
    const cases: Array<[string, Awaited<ReturnType<typeof post>>, number, string]> = [
      ['broken JSON', await post(hooks[0]!, '{"order":'), 400, 'invalid_json'],
      ['form data', await post(hooks[0]!, 'order=42', { 'content-type': 'application/x-www-form-urlencoded' }), 400, 'invalid_json'],
      ['a bare number', await post(hooks[0]!, '42'), 400, 'invalid_request'],
      ['NUL in a value', await post(hooks[0]!, { note: 'a\u0000b' }), 400, 'invalid_request'],
      ['a lone surrogate', await post(hooks[0]!, '{"note":"\\ud800"}'), 400, 'invalid_request'],
      ['a bad idempotency key', await post(hooks[0]!, {}, { 'idempotency-key': 'x'.repeat(300) }), 400, 'invalid_request'],
      ['over WEBHOOK_BODY_LIMIT_BYTES', await post(hooks[0]!, { note: 'x'.repeat(5000) }), 413, 'payload_too_large'],
    ];
    for (const [name, res, status, code] of cases) {
      assert.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, code, name);
    }
    assert.match(cases[3]![1].body.error.message, /^body\.note: /);
    assert.deepEqual(await conversations(agent.id), [], 'no run');
  });

  it('a rotated URL answers 404 at once; republishing keeps the URL; removing the trigger or the agent kills it', async () => {
    const { agent, hooks } = await webhookAgent([{ kind: 'webhook', message: 'A' }, { kind: 'webhook', message: 'B' }]);
    const [a, b] = hooks;
    const rotated = await ws.agent(agent.id).rotateWebhookUrl(a!.id);
    assert.equal(rotated.id, a!.id);
    assert.notEqual(rotated.url, a!.url);
    const old = await post(a!, {});
    assert.deepEqual([old.status, old.body.error.code], [404, 'webhook_not_found']);
    assert.equal((await post(rotated, {})).status, 202);

    // A schedule put in front, B's message edited in place: both keep their URLs at their new index.
    await ws.agent(agent.id).setTriggers([
      { kind: 'schedule', cron: '0 9 * * 1', message: 'weekly' },
      { kind: 'webhook', message: 'A' },
      { kind: 'webhook', message: 'B, edited' },
    ]);
    assert.deepEqual((await ws.agent(agent.id).webhooks()).map((h) => [h.id, h.url, h.triggerIndex]), [[a!.id, rotated.url, 1], [b!.id, b!.url, 2]]);
    // A removed: its URL stops; B (same message and url) keeps its own.
    await ws.agent(agent.id).setTriggers([{ kind: 'webhook', message: 'B, edited' }]);
    assert.deepEqual((await ws.agent(agent.id).webhooks()).map((h) => h.url), [b!.url]);
    assert.equal((await post(rotated, {})).status, 404);
    await waitFor('the runs done', () => api.db('turns').whereIn('conversation_id', api.db('conversations').where({ agent_id: agent.id }).select('id')).where({ status: 'running' }), (r) => r.length === 0);
    await ws.agent(agent.id).delete();
    assert.equal((await post(b!, {})).status, 404);
  });

  it('a workspace without credits answers 409 insufficient_credits and starts no run', async () => {
    const poor = await api.newWorkspace({ credits: 0 });
    const created = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey: poor.apiKey, body: { name: 'Broke', triggers: [{ kind: 'webhook' }] } });
    const listed = await call<{ data: Webhook[] }>(api.baseURL, 'GET', `/v1/agents/${created.body.id}/webhooks`, { apiKey: poor.apiKey });
    const res = await post(listed.body.data[0]!, { x: 1 });
    assert.deepEqual([res.status, res.body.error.code], [409, 'insufficient_credits']);
    assert.equal((await api.db('conversations').where({ agent_id: created.body.id })).length, 0);
  });

  it('the result is delivered signed (Standard Webhooks) to the trigger url, and retried after the receiver fails once', async () => {
    const target = await receiver([500, 204]);
    try {
      const { agent, hooks } = await webhookAgent([{ kind: 'webhook', message: 'Greet', url: target.url }]);
      const secret = await ws.agent(agent.id).mintWebhookSigningSecret(hooks[0]!.id);
      assert.match(secret, /^whsec_/);
      assert.equal((await ws.agent(agent.id).webhooks())[0]?.signingSecret, true);
      const accepted = await post(hooks[0]!, { name: 'Ada' });
      assert.equal(accepted.status, 202);
      await waitFor('two delivery attempts', () => target.got.length, (n) => n >= 2);
      const [failed, delivered] = target.got;
      assert.equal(failed!.headers['webhook-id'], delivered!.headers['webhook-id'], 'the same message id on every attempt');
      assert.equal(delivered!.headers['content-type'], 'application/json');
      assert.match(delivered!.headers['webhook-signature']!, /^v1,/);
      const verified = new StandardWebhook(secret).verify(delivered!.body, delivered!.headers) as { type: string; data: Record<string, unknown> };
      assert.equal(verified.type, 'turn.finished');
      assert.deepEqual(
        { ...verified.data, reply: undefined },
        { turnId: accepted.body.turnId, agentId: agent.id, conversationId: accepted.body.conversationId, webhookId: hooks[0]!.id, triggerIndex: 0, status: 'done', reply: undefined },
      );
      assert.match(String(verified.data.reply), /^\(offline model\) You said: Greet[\s\S]*"name": "Ada"/);
      assert.throws(() => new StandardWebhook(secret).verify(delivered!.body.replace('Ada', 'Eve'), delivered!.headers), /signature/i, 'an altered body fails');
      const [run] = await waitFor('the run listed', () => runs(accepted.body.conversationId), (r) => r.length === 1);
      const result = await api.temporal.workflow.getHandle(run!).result();
      assert.deepEqual(result, { turnId: accepted.body.turnId, conversationId: accepted.body.conversationId, delivery: { delivered: true, status: 204 } });
      assert.equal(target.got.length, 2, 'delivered once it succeeded');
    } finally {
      await target.close();
    }
  });

  it('nothing is delivered before a signing secret is minted; a 4xx answer stops the delivery without retrying', async () => {
    const target = await receiver([400]);
    try {
      const { agent, hooks } = await webhookAgent([{ kind: 'webhook', url: target.url }]);
      const result = async () => {
        const accepted = await post(hooks[0]!, { n: 1 });
        assert.equal(accepted.status, 202);
        const [run] = await waitFor('the run listed', () => runs(accepted.body.conversationId), (r) => r.length === 1);
        return ((await api.temporal.workflow.getHandle(run!).result()) as { delivery: { delivered: boolean; reason?: string } }).delivery;
      };
      const unsigned = await result();
      assert.equal(unsigned.delivered, false);
      assert.match(unsigned.reason ?? '', /no signing secret/);
      assert.equal(target.got.length, 0, 'never sent unsigned');

      await ws.agent(agent.id).mintWebhookSigningSecret(hooks[0]!.id);
      const refused = await result();
      assert.equal(refused.delivered, false);
      assert.match(refused.reason ?? '', /HTTP 400/);
      assert.equal(target.got.length, 1, 'a 400 is not retried');
    } finally {
      await target.close();
    }
  });
});
