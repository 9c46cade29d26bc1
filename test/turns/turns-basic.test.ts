import assert from 'node:assert/strict';
import { agentConversationSchema, messageSchema } from '../../domain/conversation';
import { turnEventSchema } from '../../domain/turn-events';
import { useTestApi } from '../support/api';
import { call } from '../../harness/http';
import { collectTurn } from '../support/sse';

describe('turns on the offline model: the event stream', () => {
  const api = useTestApi();
  let apiKey: string;
  before(async () => {
    ({ apiKey } = await api.newWorkspace({ credits: 100 }));
  });

  async function newConversation() {
    const agent = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Echo' } });
    const conv = await call(api.baseURL, 'POST', `/v1/agents/${agent.body.id}/conversations`, { apiKey, body: {} });
    assert.equal(conv.status, 201, JSON.stringify(conv.body));
    return agentConversationSchema.parse(conv.body);
  }

  it('streams start, text deltas and one done whose reply is the text, with SSE headers', async () => {
    const conv = await newConversation();
    const res = await collectTurn(`${api.baseURL}/v1/conversations/${conv.id}/turns`, { method: 'POST', apiKey, body: { text: 'hello there my friend' } });
    assert.equal(res.status, 200, JSON.stringify(res.errorBody));
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(res.headers.get('cache-control'), 'no-cache, no-transform');
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    const events = res.events.map((e) => turnEventSchema.parse(e.event));
    assert.equal(events[0]?.type, 'start');
    assert.deepEqual(res.events.map((e) => e.seq), res.events.map((_, i) => i + 1), 'seq is 1, 2, 3…');
    const texts = events.filter((e) => e.type === 'text');
    assert.ok(texts.length >= 3, `${texts.length} text events`);
    const terminal = events.filter((e) => e.type === 'done' || e.type === 'error');
    assert.equal(terminal.length, 1);
    const done = events.at(-1);
    assert.equal(done?.type, 'done');
    const streamed = texts.map((t) => (t.type === 'text' ? t.text : '')).join('');
    assert.equal(done?.type === 'done' && done.reply, streamed);
    assert.match(streamed, /offline/);

    const messages = await call<{ data: unknown[] }>(api.baseURL, 'GET', `/v1/conversations/${conv.id}/messages`, { apiKey });
    const list = messages.body.data.map((m) => messageSchema.parse(m));
    assert.deepEqual(list.map((m) => [m.role, m.content]), [['user', 'hello there my friend'], ['assistant', streamed]]);
  });

  it('a finished turn replays in full, and resumes after Last-Event-ID without repeats', async () => {
    const conv = await newConversation();
    const first = await collectTurn(`${api.baseURL}/v1/conversations/${conv.id}/turns`, { method: 'POST', apiKey, body: { text: 'one two three four' } });
    const start = first.events[0]?.event;
    assert.ok(start?.type === 'start');
    const turnId = start.turnId;
    const replay = await collectTurn(`${api.baseURL}/v1/turns/${turnId}/events`, { method: 'GET', apiKey });
    assert.deepEqual(replay.events, first.events);
    const rest = await collectTurn(`${api.baseURL}/v1/turns/${turnId}/events`, { method: 'GET', apiKey, lastEventId: 2 });
    assert.deepEqual(rest.events, first.events.slice(2));

    // The first message names the conversation; a later one does not rename it.
    await collectTurn(`${api.baseURL}/v1/conversations/${conv.id}/turns`, { method: 'POST', apiKey, body: { text: 'five six' } });
    const named = await call(api.baseURL, 'GET', `/v1/conversations/${conv.id}`, { apiKey });
    assert.equal(agentConversationSchema.parse(named.body).title, 'one two three four');
  });
});
