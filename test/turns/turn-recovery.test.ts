import assert from 'node:assert/strict';
import type { TurnEvent } from '../../sdk/src';
import { useIsolatedStack } from '../support/isolated-stack';
import { shownText } from '../support/sse';

const REPLY = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

/**
 * A worker killed with SIGKILL in the middle of a streamed model reply: Temporal notices the
 * missing heartbeat, another worker retries the model step, and the turn finishes with exactly
 * one assistant message and one debit, while the consumer's text stays right.
 */
describe('turn recovery after a worker is killed mid-stream', function () {
  this.timeout(120_000);
  const stack = useIsolatedStack({ model: 'openai', worker: 'none', env: { MODEL_HEARTBEAT_TIMEOUT_MS: '2000', MODEL_RETRY_INITIAL_MS: '100' } });
  const { api, model: server } = stack;

  async function killMidStream(second: { text: string }) {
    const { ws, workspaceId } = await stack.workspace(50);
    const conv = await (await ws.agents.create({ name: 'Crash test' })).start();
    await stack.killWorkers(); // only the worker started here may pick up this turn
    await stack.startWorker();
    server.enqueue({ text: REPLY, chunkDelayMs: 80 }, { text: second.text, chunkDelayMs: 5 });
    const events: TurnEvent[] = [];
    let killed = false;
    for await (const e of conv.ask('tell me forty words')) {
      events.push(e);
      if (!killed && e.type === 'text') {
        killed = true;
        await stack.killWorkers();
        await stack.startWorker();
      }
    }
    const turnId = events[0]?.type === 'start' ? events[0].turnId : '';
    return { events, conv, turnId, workspaceId };
  }

  it('the replacement worker finishes the turn: one assistant message, one debit, seamless text', async () => {
    const before = server.requests.length;
    const { events, conv, turnId, workspaceId } = await killMidStream({ text: REPLY });
    const done = events.at(-1);
    assert.ok(done?.type === 'done', JSON.stringify(events.slice(-3)));
    assert.equal(done.reply, REPLY);
    assert.equal(events.filter((e) => e.type === 'done' || e.type === 'error').length, 1);
    assert.ok(server.requests.length - before >= 2, 'the model was called again');
    assert.equal(shownText(events), REPLY, 'the consumer shows exactly the reply');
    assert.equal(events.filter((e) => e.type === 'text' && e.reset).length, 0, 'the same text resumes without a reset');
    const messages = await conv.messages();
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant']);
    assert.equal(messages[1]?.content, REPLY);
    const debits = await api.db('credit_debits').where({ turn_id: turnId });
    assert.equal(debits.length, 1);
    const ws = await api.repos.workspaces.get({ id: workspaceId });
    assert.equal(Math.round((50 - ws!.credits) * 1e6), Math.round(Number(debits[0].amount) * 1e6));
  });

  it('when the retried call says something else, one reset event replaces what was shown', async () => {
    const { events } = await killMidStream({ text: 'A different, shorter answer.' });
    const done = events.at(-1);
    assert.ok(done?.type === 'done');
    assert.equal(done.reply, 'A different, shorter answer.');
    assert.equal(events.filter((e) => e.type === 'text' && e.reset).length, 1);
    assert.equal(shownText(events), done.reply);
  });
});
