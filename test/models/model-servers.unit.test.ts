import assert from 'node:assert/strict';
import { startAnthropicServer } from '../../harness/model-servers/anthropic-server';
import { startOpenAIServer } from '../../harness/model-servers/openai-server';
import type { ModelServer } from '../../harness/model-servers/scripted-server';

/** The fake model servers' wire format itself (the benchmark drives them directly too). */

interface SseEvent {
  event?: string;
  data: string;
}

async function post(url: string, body: unknown): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) event.data += line.slice(6);
      }
      return event;
    });
}

type Json = Record<string, unknown>;
const json = (e: SseEvent | undefined): Json => JSON.parse(e?.data ?? 'null') as Json;
const delta = (chunk: Json): Json => ((chunk.choices as Json[])[0]?.delta ?? {}) as Json;

describe('fake model servers (wire format)', () => {
  describe('openai-server', () => {
    let server: ModelServer;
    before(async () => {
      server = await startOpenAIServer();
    });
    after(() => server.close());
    const url = () => `${server.url}/v1/chat/completions`;

    it('streams chat.completion.chunk lines: role, content, tool calls split across chunks, finish, usage, [DONE]', async () => {
      server.enqueue({ text: 'Hi there', toolCalls: [{ id: 'call_x', name: 'lookup', args: { q: 'weather today' } }], usage: { inputTokens: 3, outputTokens: 4 } });
      const res = await post(url(), { model: 'gpt-4.1-mini', stream: true, stream_options: { include_usage: true }, messages: [] });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const events = parseSse(res.text);
      assert.equal(events.at(-1)?.data, '[DONE]');
      const chunks = events.slice(0, -1).map(json);
      assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4.1-mini'));
      assert.deepEqual(delta(chunks[0] as Json), { role: 'assistant', content: '', refusal: null });
      assert.deepEqual([delta(chunks[1] as Json).content, delta(chunks[2] as Json).content], ['Hi ', 'there']);
      const toolDeltas = chunks.filter((c) => delta(c).tool_calls).map((c) => (delta(c).tool_calls as Json[])[0] as Json);
      assert.deepEqual(toolDeltas[0], { index: 0, id: 'call_x', type: 'function', function: { name: 'lookup', arguments: '' } });
      assert.ok(toolDeltas.length > 2, 'arguments arrive in several fragments');
      assert.equal(toolDeltas.slice(1).map((t) => (t.function as Json).arguments).join(''), '{"q":"weather today"}');
      const finish = chunks.at(-2) as Json;
      assert.equal(((finish.choices as Json[])[0] as Json).finish_reason, 'tool_calls');
      assert.deepEqual((chunks.at(-1) as Json).usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
      assert.deepEqual((chunks.at(-1) as Json).choices, []);
    });

    it('sends no usage chunk without stream_options.include_usage; chunkSize sets the delta size', async () => {
      server.enqueue({ text: 'abcdefghij', chunkSize: 4 });
      const res = await post(url(), { model: 'm', stream: true, messages: [] });
      const chunks = parseSse(res.text).slice(0, -1).map(json);
      assert.deepEqual(
        chunks.slice(1, -1).map((c) => delta(c).content),
        ['abcd', 'efgh', 'ij'],
      );
      assert.ok(chunks.every((c) => c.usage === undefined));
    });

    it('answers scripted errors in OpenAI format with Retry-After, and records request bodies', async () => {
      server.enqueue({ status: 429, retryAfter: 7, message: 'slow down' });
      const before = server.requests.length;
      const res = await post(url(), { model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '7');
      assert.deepEqual(JSON.parse(res.text), { error: { message: 'slow down', type: 'rate_limit_exceeded', param: null, code: null } });
      assert.deepEqual(server.requests[before]?.body, { model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] });
    });
  });

  describe('anthropic-server', () => {
    let server: ModelServer;
    before(async () => {
      server = await startAnthropicServer();
    });
    after(() => server.close());

    it('streams message_start, content blocks (text, tool_use), message_delta and message_stop', async () => {
      server.enqueue({ text: 'Hi there', toolCalls: [{ id: 'toolu_x', name: 'lookup', args: { q: 'weather today' } }], usage: { inputTokens: 3, outputTokens: 4 } });
      const res = await post(`${server.url}/v1/messages`, { model: 'claude-sonnet-4-5', stream: true, max_tokens: 100, messages: [] });
      assert.equal(res.status, 200);
      const events = parseSse(res.text);
      assert.deepEqual(
        events.map((e) => e.event),
        [
          'message_start',
          'content_block_start',
          'content_block_delta',
          'content_block_delta',
          'content_block_stop',
          'content_block_start',
          ...events.slice(6, -3).map(() => 'content_block_delta'),
          'content_block_stop',
          'message_delta',
          'message_stop',
        ],
      );
      assert.ok(events.every((e) => json(e).type === e.event));
      assert.equal(((json(events[0]).message as Json).usage as Json).input_tokens, 3);
      assert.deepEqual(json(events[1]).content_block, { type: 'text', text: '' });
      assert.deepEqual(json(events[2]).delta, { type: 'text_delta', text: 'Hi ' });
      assert.deepEqual(json(events[5]).content_block, { type: 'tool_use', id: 'toolu_x', name: 'lookup', input: {} });
      const partial = events.slice(6, -3).map((e) => (json(e).delta as Json).partial_json).join('');
      assert.equal(partial, '{"q":"weather today"}');
      assert.deepEqual(json(events.at(-2)).delta, { stop_reason: 'tool_use', stop_sequence: null });
      assert.deepEqual(json(events.at(-2)).usage, { output_tokens: 4 });
    });

    it('answers scripted errors in Anthropic format', async () => {
      server.enqueue({ status: 400, message: 'max_tokens: required' });
      const res = await post(`${server.url}/v1/messages`, { model: 'm', stream: true, messages: [] });
      assert.equal(res.status, 400);
      assert.deepEqual(JSON.parse(res.text), { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: required' } });
    });

    it('close() ends a stalled stream', async () => {
      const stalled = await startAnthropicServer();
      stalled.enqueue({ text: 'a b c', hangAfterChunks: 2 });
      const res = await fetch(`${stalled.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ stream: true, model: 'm', messages: [] }) });
      const reading = res.text().then(
        () => 'ended',
        () => 'failed',
      );
      await new Promise((r) => setTimeout(r, 50));
      await stalled.close();
      assert.ok(['ended', 'failed'].includes(await reading));
    });
  });
});
