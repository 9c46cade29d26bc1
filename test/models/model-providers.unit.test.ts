import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { createAnthropicProvider } from '../../activities/model/anthropic';
import { createOpenAIProvider } from '../../activities/model/openai';
import { ModelError, type ModelProvider, type ModelRequest, type ModelResult } from '../../activities/model/types';
import { startAnthropicServer } from '../../harness/model-servers/anthropic-server';
import { startOpenAIServer } from '../../harness/model-servers/openai-server';
import type { ModelServer, RecordedRequest } from '../../harness/model-servers/scripted-server';

/**
 * The OpenAI and Anthropic providers, through the real provider code and the AI SDK, against
 * local servers that speak each API's streaming wire protocol.
 */

interface Flavour {
  name: 'openai' | 'anthropic';
  model: string;
  start: () => Promise<ModelServer>;
  provider: (server: ModelServer, options?: { idleTimeoutMs?: number }) => ModelProvider;
  /** The system prompt as the server received it. */
  system: (body: Body) => unknown;
  /** The tool definitions as the server received them, normalised to name/description/schema. */
  tools: (body: Body) => Array<{ name: unknown; description: unknown; schema: unknown }>;
  /** The first user message's image part as the server received it. */
  expectedImage: (mimeType: string, data: string) => unknown;
  authHeader: (request: RecordedRequest) => unknown;
}

type Body = Record<string, unknown>;
const bodyOf = (request: RecordedRequest | undefined): Body => {
  assert.ok(request, 'the server received a request');
  return request.body as Body;
};
const list = (value: unknown): Body[] => value as Body[];

const flavours: Flavour[] = [
  {
    name: 'openai',
    model: 'gpt-4.1-mini',
    start: startOpenAIServer,
    provider: (server, options) => createOpenAIProvider({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, ...options }),
    system: (body) => list(body.messages)[0],
    tools: (body) =>
      list(body.tools).map((t) => {
        const fn = t.function as Body;
        return { name: fn.name, description: fn.description, schema: fn.parameters };
      }),
    expectedImage: (mimeType, data) => ({ type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } }),
    authHeader: (request) => request.headers.authorization,
  },
  {
    name: 'anthropic',
    model: 'claude-sonnet-4-5',
    start: startAnthropicServer,
    provider: (server, options) => createAnthropicProvider({ apiKey: 'sk-ant-test', baseURL: server.url, ...options }),
    system: (body) => body.system,
    tools: (body) => list(body.tools).map((t) => ({ name: t.name, description: t.description, schema: t.input_schema })),
    expectedImage: (mimeType, data) => ({ type: 'image', source: { type: 'base64', media_type: mimeType, data } }),
    authHeader: (request) => request.headers['x-api-key'],
  },
];

const writeTool = {
  name: 'files_write',
  description: 'Write a file in the workspace',
  parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path'] },
};

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function isModelError(expect: { retryable: boolean; status?: number; retryAfterMs?: number; message?: RegExp }) {
  return (error: unknown) => {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    assert.equal(error.retryable, expect.retryable, `retryable of "${error.message}"`);
    if ('status' in expect) assert.equal(error.status, expect.status);
    if ('retryAfterMs' in expect) assert.equal(error.retryAfterMs, expect.retryAfterMs);
    if (expect.message) assert.match(error.message, expect.message);
    return true;
  };
}

for (const flavour of flavours) {
  describe(`model provider ${flavour.name} (against a local ${flavour.name} wire-protocol server)`, () => {
    let server: ModelServer;
    let provider: ModelProvider;
    before(async () => {
      server = await flavour.start();
      provider = flavour.provider(server);
    });
    after(() => server.close());

    const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
      model: flavour.model,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'hello' }],
      tools: [writeTool],
      ...overrides,
    });
    const run = async (overrides: Partial<ModelRequest> = {}) => {
      const deltas: string[] = [];
      const result = await provider.stream(request(overrides), (delta) => deltas.push(delta));
      return { deltas, result };
    };
    /** Runs a call that must fail; returns the deltas seen before the failure. */
    const runFailing = async (check: (error: unknown) => boolean, overrides: Partial<ModelRequest> = {}) => {
      const deltas: string[] = [];
      await assert.rejects(
        provider.stream(request(overrides), (delta) => deltas.push(delta)),
        check,
      );
      return deltas;
    };

    it('streams text as several deltas, in order, whose concatenation is result.text', async () => {
      server.enqueue({ text: 'Hello brave new world, how are you?', usage: { inputTokens: 11, outputTokens: 7 } });
      const { deltas, result } = await run();
      assert.deepEqual(deltas, ['Hello ', 'brave ', 'new ', 'world, ', 'how ', 'are ', 'you?']);
      assert.equal(result.text, deltas.join(''));
      assert.deepEqual(result.toolCalls, []);
      assert.equal(result.finishReason, 'stop');
      assert.deepEqual(result.usage, { inputTokens: 11, outputTokens: 7 });
    });

    it('delivers deltas as they arrive, not when the response ends', async () => {
      server.enqueue({ text: 'one two three four five', chunkDelayMs: 60 });
      const started = Date.now();
      const at: number[] = [];
      const result: ModelResult = await provider.stream(request(), () => at.push(Date.now() - started));
      const total = Date.now() - started;
      assert.equal(result.text, 'one two three four five');
      assert.equal(at.length, 5);
      assert.ok((at[0] ?? total) < total - 150, `first delta at ${at[0]} ms of ${total} ms`);
    });

    it('assembles tool-call deltas (split arguments) into tool calls with parsed arguments', async () => {
      server.enqueue({
        text: 'Writing both.',
        toolCalls: [
          { id: 'call_a', name: 'files_write', args: { path: 'notes.md', content: 'hi "there"\nline 2' } },
          { id: 'call_b', name: 'files_write', args: { path: 'b.md', nested: { list: [1, 2, { x: null }] } } },
        ],
        argsChunkSize: 3,
        usage: { inputTokens: 40, outputTokens: 25 },
      });
      const { deltas, result } = await run();
      assert.equal(result.text, 'Writing both.');
      assert.deepEqual(deltas, ['Writing ', 'both.']);
      assert.deepEqual(result.toolCalls, [
        { id: 'call_a', name: 'files_write', args: { path: 'notes.md', content: 'hi "there"\nline 2' } },
        { id: 'call_b', name: 'files_write', args: { path: 'b.md', nested: { list: [1, 2, { x: null }] } } },
      ]);
      assert.equal(result.finishReason, 'tool-calls');
      assert.deepEqual(result.usage, { inputTokens: 40, outputTokens: 25 });
    });

    it('sends the model, the system prompt, the tool schemas and the key', async () => {
      server.enqueue({ text: 'ok' });
      const before = server.requests.length;
      await run();
      const received = server.requests[before];
      const body = bodyOf(received);
      assert.equal(body.model, flavour.model);
      assert.equal(body.stream, true);
      const system = flavour.system(body);
      if (flavour.name === 'openai') assert.deepEqual(system, { role: 'system', content: 'You are terse.' });
      else assert.deepEqual(system, [{ type: 'text', text: 'You are terse.' }]);
      assert.deepEqual(flavour.tools(body), [{ name: 'files_write', description: writeTool.description, schema: writeTool.parameters }]);
      assert.ok(received);
      assert.match(String(flavour.authHeader(received)), /sk-(ant-)?test/);
      if (flavour.name === 'openai') assert.deepEqual(body.stream_options, { include_usage: true });
    });

    it('sends no tools when none are offered', async () => {
      server.enqueue({ text: 'ok' });
      const before = server.requests.length;
      await run({ tools: [] });
      assert.equal(bodyOf(server.requests[before]).tools, undefined);
    });

    it('sends images as base64 with their media type, in the provider format', async () => {
      server.enqueue({ text: 'A red pixel.' });
      const before = server.requests.length;
      const data = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      await run({ messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', mimeType: 'image/png', data }] }] });
      const messages = list(bodyOf(server.requests[before]).messages).filter((m) => m.role === 'user');
      assert.deepEqual(list(messages[0]?.content), [{ type: 'text', text: 'What is this?' }, flavour.expectedImage('image/png', data)]);
    });

    it('sends assistant tool calls and tool results back in the provider format', async () => {
      server.enqueue({ text: 'Done.' });
      const before = server.requests.length;
      await run({
        messages: [
          { role: 'user', content: 'write two files' },
          {
            role: 'assistant',
            content: 'Writing.',
            toolCalls: [
              { id: 'call_1', name: 'files_write', args: { path: 'a.md' } },
              { id: 'call_2', name: 'files_write', args: { path: 'b.md' } },
            ],
          },
          { role: 'tool', toolCallId: 'call_1', toolName: 'files_write', content: 'wrote a.md' },
          { role: 'tool', toolCallId: 'call_2', toolName: 'files_write', content: 'permission denied', isError: true },
        ],
      });
      const messages = list(bodyOf(server.requests[before]).messages);
      if (flavour.name === 'openai') {
        assert.deepEqual(messages.slice(2), [
          {
            role: 'assistant',
            content: 'Writing.',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'files_write', arguments: '{"path":"a.md"}' } },
              { id: 'call_2', type: 'function', function: { name: 'files_write', arguments: '{"path":"b.md"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'wrote a.md' },
          { role: 'tool', tool_call_id: 'call_2', content: 'permission denied' },
        ]);
      } else {
        assert.deepEqual(messages.slice(1), [
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Writing.' },
              { type: 'tool_use', id: 'call_1', name: 'files_write', input: { path: 'a.md' } },
              { type: 'tool_use', id: 'call_2', name: 'files_write', input: { path: 'b.md' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_1', content: 'wrote a.md' },
              { type: 'tool_result', tool_use_id: 'call_2', content: 'permission denied', is_error: true },
            ],
          },
        ]);
      }
    });

    it('sends an image as the type its bytes show, leaves out empty text parts and empty replies, sends maxOutputTokens', async () => {
      server.enqueue({ text: 'A red pixel.' });
      const before = server.requests.length;
      const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      await run({
        maxOutputTokens: 77,
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: '' },
          { role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'What is this?' }, { type: 'image', mimeType: 'image/jpeg', data: png }] },
        ],
      });
      const body = bodyOf(server.requests[before]);
      assert.equal(body.max_tokens, 77);
      const messages = list(body.messages);
      assert.deepEqual(
        messages.filter((m) => m.role === 'assistant'),
        [],
      );
      const images = messages.flatMap((m) => (Array.isArray(m.content) ? list(m.content) : [])).filter((p) => p.type !== 'text');
      assert.deepEqual(images, [flavour.expectedImage('image/png', png)]);
      assert.ok(!JSON.stringify(messages).includes('"text":""'), 'no empty text part');
    });

    it('reports tool-argument fragments through onOutput; empty arguments of an offered tool are {}', async () => {
      server.enqueue({ toolCalls: [{ id: 'call_a', name: 'files_write', args: { path: 'notes.md' } }], argsChunkSize: 3 });
      const outputs: string[] = [];
      const result = await provider.stream(request(), () => undefined, (delta) => outputs.push(delta));
      assert.ok(outputs.length > 1, 'several fragments');
      assert.equal(outputs.join(''), '{"path":"notes.md"}');
      assert.deepEqual(result.toolCalls, [{ id: 'call_a', name: 'files_write', args: { path: 'notes.md' } }]);
      server.enqueue({ toolCalls: [{ id: 'call_b', name: 'files_write', args: '' }] });
      const empty = await provider.stream(request(), () => undefined);
      assert.deepEqual(empty.toolCalls, [{ id: 'call_b', name: 'files_write', args: {} }]);
    });

    if (flavour.name === 'anthropic') {
      it("passes a call's warnings to the AI SDK's warning hook", async () => {
        server.enqueue({ text: 'ok' });
        const seen: unknown[] = [];
        const saved = globalThis.AI_SDK_LOG_WARNINGS;
        globalThis.AI_SDK_LOG_WARNINGS = (options) => seen.push(options);
        try {
          // An unknown model: the provider caps max_tokens and says so in a warning.
          await run({ model: 'claude-unknown-test' });
        } finally {
          globalThis.AI_SDK_LOG_WARNINGS = saved;
        }
        assert.equal(seen.length, 1);
        assert.match(JSON.stringify(seen[0]), /"feature":"maxOutputTokens"/);
        assert.match(JSON.stringify(seen[0]), /"model":"claude-unknown-test"/);
      });
    }

    it('answers with the default response when nothing is scripted', async () => {
      server.defaultResponse = { text: 'default reply here' };
      const { result } = await run();
      assert.equal(result.text, 'default reply here');
      server.defaultResponse = { text: 'OK' };
    });

    it('429 with Retry-After in seconds → retryable ModelError with retryAfterMs', async () => {
      server.enqueue({ status: 429, retryAfter: 2, message: 'Rate limit reached' });
      await runFailing(isModelError({ retryable: true, status: 429, retryAfterMs: 2000, message: /Rate limit reached/ }));
    });

    it('503 with Retry-After as an HTTP date → retryable ModelError with retryAfterMs', async () => {
      server.enqueue({ status: 503, retryAfter: new Date(Date.now() + 30_000).toUTCString() });
      await runFailing((error) => {
        isModelError({ retryable: true, status: 503 })(error);
        const ms = (error as ModelError).retryAfterMs ?? -1;
        assert.ok(ms > 25_000 && ms <= 30_000, `retryAfterMs ${ms}`);
        return true;
      });
    });

    it('500 → retryable ModelError without retryAfterMs', async () => {
      server.enqueue({ status: 500, message: 'The server had an error' });
      await runFailing(isModelError({ retryable: true, status: 500, retryAfterMs: undefined }));
    });

    it("400 → non-retryable ModelError carrying the provider's message", async () => {
      server.enqueue({ status: 400, message: "Invalid value for 'model': no such model" });
      await runFailing(isModelError({ retryable: false, status: 400, message: /Invalid value for 'model': no such model/ }));
    });

    it('401 → non-retryable', async () => {
      server.enqueue({ status: 401, message: 'Incorrect API key provided' });
      await runFailing(isModelError({ retryable: false, status: 401, message: /Incorrect API key/ }));
    });

    it('a malformed chunk mid-stream → retryable ModelError, after the deltas before it', async () => {
      server.enqueue({ text: 'Hello brave new world', malformed: 2 });
      const deltas = await runFailing(isModelError({ retryable: true, message: /malformed/ }));
      assert.deepEqual(deltas, ['Hello ', 'brave ']);
    });

    it('a provider error frame mid-stream (overloaded) → retryable ModelError with its message', async () => {
      server.enqueue({ text: 'Hello brave new world', errorFrameAfter: 2, message: 'Overloaded' });
      const deltas = await runFailing(isModelError({ retryable: true, message: /Overloaded/ }));
      assert.deepEqual(deltas, ['Hello ', 'brave ']);
    });

    it('a stream that ends before the finish reason (truncated) → retryable ModelError', async () => {
      server.enqueue({ text: 'Hello brave new world', truncateAfterChunks: 4 });
      const deltas = await runFailing(isModelError({ retryable: true, message: /truncated/ }));
      assert.ok(deltas.length >= 1, 'some deltas arrived first');
    });

    it('a connection dropped mid-stream → retryable ModelError', async () => {
      server.enqueue({ text: 'Hello brave new world', dropAfterChunks: 4 });
      const deltas = await runFailing(isModelError({ retryable: true }));
      assert.ok(deltas.length >= 1, 'some deltas arrived first');
    });

    it('tool arguments that are not JSON → retryable ModelError', async () => {
      server.enqueue({ toolCalls: [{ name: 'files_write', args: '{"path": "a.md", "content": ' }] });
      await runFailing(isModelError({ retryable: true, message: /malformed arguments for tool files_write/ }));
    });

    it('connection refused → retryable ModelError', async () => {
      const port = await closedPort();
      const refused = flavour.provider({ ...server, url: `http://127.0.0.1:${port}` });
      await assert.rejects(
        refused.stream(request(), () => undefined),
        isModelError({ retryable: true, message: /ECONNREFUSED|connect/i }),
      );
    });

    it('an abort while the stream hangs rejects with the signal reason and closes the connection', async () => {
      server.enqueue({ text: 'Hello brave new world', hangAfterChunks: 3 });
      const aborts = server.clientAborts;
      const controller = new AbortController();
      const reason = new Error('activity cancelled');
      const deltas: string[] = [];
      const pending = provider.stream(request({ signal: controller.signal }), (delta) => {
        deltas.push(delta);
        setTimeout(() => controller.abort(reason), 50);
      });
      await assert.rejects(pending, (error) => error === reason);
      assert.ok(deltas.length >= 1);
      for (let i = 0; i < 50 && server.clientAborts === aborts; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(server.clientAborts, aborts + 1, 'the server saw the client go away');
    });

    it('an already-aborted signal rejects without a request', async () => {
      const before = server.requests.length;
      const controller = new AbortController();
      controller.abort(new Error('gone'));
      await assert.rejects(provider.stream(request({ signal: controller.signal }), () => undefined), /gone/);
      assert.equal(server.requests.length, before);
    });

    it('idleTimeoutMs: a stream silent for that long → retryable ModelError', async () => {
      server.enqueue({ text: 'Hello brave new world', hangAfterChunks: 3 });
      const idle = flavour.provider(server, { idleTimeoutMs: 200 });
      await assert.rejects(
        idle.stream(request(), () => undefined),
        isModelError({ retryable: true, message: /no data from the model for 200 ms/ }),
      );
    });

    it('an error thrown by onText propagates as is and ends the request', async () => {
      server.enqueue({ text: 'one two three four five six', chunkDelayMs: 20 });
      const aborts = server.clientAborts;
      const boom = new Error('consumer failed');
      await assert.rejects(
        provider.stream(request(), () => {
          throw boom;
        }),
        (error) => error === boom,
      );
      for (let i = 0; i < 50 && server.clientAborts === aborts; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(server.clientAborts, aborts + 1, 'the request was abandoned, not read to the end');
    });
  });
}
