import assert from 'node:assert/strict';
import type { TurnEvent } from '../../sdk/src';
import { shownText } from '../support/sse';
import { useIsolatedStack } from '../support/isolated-stack';

/** Turns through the real OpenAI and Anthropic code paths, against local servers speaking their wire protocols. */
for (const flavour of ['openai', 'anthropic'] as const) {
  describe(`turns through the ${flavour} provider: retries and refusals`, function () {
    this.timeout(60_000);
    const stack = useIsolatedStack({ model: flavour, worker: 'inline', env: { MODEL_RETRY_INITIAL_MS: '50' } });
    const { api, model: server } = stack;

    async function conversation() {
      const { ws } = await stack.workspace();
      const agent = await ws.agents.create({ name: 'Provider test', instructions: 'Answer briefly.' });
      return { ws, conv: await agent.start() };
    }

    it('streams the model reply as text events and stores exactly that reply', async () => {
      const { conv } = await conversation();
      server.enqueue({ text: 'The order shipped on Monday and arrives Thursday.', chunkDelayMs: 5 });
      const events: TurnEvent[] = [];
      for await (const e of conv.ask('where is my order?')) events.push(e);
      const done = events.at(-1);
      assert.ok(done?.type === 'done', JSON.stringify(events));
      assert.equal(done.reply, 'The order shipped on Monday and arrives Thursday.');
      assert.ok(events.filter((e) => e.type === 'text').length >= 2);
      const sent = server.requests.at(-1)?.body as Record<string, unknown>;
      assert.match(JSON.stringify(sent), /Answer briefly\./, 'the instructions reach the model');
      assert.match(JSON.stringify(sent), /where is my order\?/);
      const messages = await conv.messages();
      assert.equal(messages.at(-1)?.content, done.reply);
    });

    it('a 429 with Retry-After and a 500 are retried; the turn then finishes', async () => {
      const { conv } = await conversation();
      const before = server.requests.length;
      server.enqueue({ status: 429, retryAfter: 1, message: 'slow down' }, { status: 500, message: 'boom' }, { text: 'Recovered fine.' });
      const started = Date.now();
      const reply = await conv.ask('try hard');
      assert.equal(reply, 'Recovered fine.');
      assert.equal(server.requests.length - before, 3, 'one call and two retries');
      assert.ok(Date.now() - started >= 1000, 'Retry-After (1 s) was honoured');
    });

    it('a 400 becomes an error event with retryable false: no reply stored, nothing debited', async () => {
      const { conv } = await conversation();
      const before = server.requests.length;
      server.enqueue({ status: 400, message: 'context length exceeded' });
      const events: TurnEvent[] = [];
      for await (const e of conv.ask('too long')) events.push(e);
      const last = events.at(-1);
      assert.ok(last?.type === 'error', JSON.stringify(events));
      assert.equal(last.retryable, false);
      // The provider's own text stays in the worker's log: the client gets a plain sentence and the turn id.
      assert.doesNotMatch(last.message, /context length exceeded/);
      assert.match(last.message, /^the model refused the request \(turn trn_\w+\)$/);
      assert.equal(server.requests.length - before, 1, 'a 400 is not retried');
      assert.deepEqual((await conv.messages()).map((m) => m.role), ['user']);
      const turnId = events[0]?.type === 'start' ? events[0].turnId : '';
      assert.equal((await api.db('credit_debits').where({ turn_id: turnId })).length, 0);
    });

    it('a malformed chunk mid-stream is retried, and the consumer ends with the right text', async () => {
      const { conv } = await conversation();
      server.enqueue({ text: 'alpha beta gamma delta', malformed: 2 }, { text: 'alpha beta gamma delta' });
      const events: TurnEvent[] = [];
      for await (const e of conv.ask('stream please')) events.push(e);
      const done = events.at(-1);
      assert.ok(done?.type === 'done', JSON.stringify(events));
      assert.equal(done.reply, 'alpha beta gamma delta');
      assert.equal(shownText(events), done.reply);
    });
  });
}
