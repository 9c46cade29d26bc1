import assert from 'node:assert/strict';
import { LocalModelProvider } from '../../activities/model/local';
import type { ModelMessage, ModelRequest, ModelTool } from '../../activities/model/types';

/** The built-in offline model `local`: deterministic, no network. */

const writeTool: ModelTool = {
  name: 'files_write',
  description: 'Write a file',
  parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
};
const readTool: ModelTool = { name: 'files_read', description: 'Read a file', parameters: { type: 'object' } };

const request = (messages: ModelMessage[], overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'offline',
  system: 'You are helpful.',
  messages,
  tools: [writeTool, readTool],
  ...overrides,
});

async function run(provider: LocalModelProvider, req: ModelRequest) {
  const deltas: string[] = [];
  const result = await provider.stream(req, (delta) => deltas.push(delta));
  return { deltas, result };
}

describe('model provider local (offline)', () => {
  const local = new LocalModelProvider();

  it('echoes the last user message, prefixed "(offline model) ", in several deltas', async () => {
    const { deltas, result } = await run(local, request([{ role: 'user', content: 'hello' }]));
    assert.equal(result.text, '(offline model) You said: hello');
    assert.deepEqual(deltas, ['(offline ', 'model) ', 'You ', 'said: ', 'hello']);
    assert.equal(deltas.join(''), result.text);
    assert.deepEqual(result.toolCalls, []);
    assert.equal(result.finishReason, 'stop');
    assert.equal(local.id, 'local');
  });

  it('is deterministic', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: 'what is  the\nplan?' },
    ];
    const a = await run(local, request(messages));
    const b = await run(new LocalModelProvider(), request(messages));
    assert.deepEqual(a, b);
    assert.equal(a.result.text, '(offline model) You said: what is  the\nplan?');
    assert.ok(a.deltas.length >= 3);
  });

  it('estimates usage as ceil(characters / 4)', async () => {
    const { result } = await run(local, request([{ role: 'user', content: 'hello' }], { system: 'abc' }));
    // input: "abc" + "hello" = 8 chars → 2; output: 31 chars → 8
    assert.deepEqual(result.usage, { inputTokens: 2, outputTokens: 8 });
  });

  it('mentions attached images', async () => {
    const { result } = await run(local, request([{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', mimeType: 'image/png', data: 'AAAA' }] }]));
    assert.equal(result.text, '(offline model) You said: look [1 image attached]');
  });

  it('turns "/tool <name> <json>" lines of the last user message into tool calls', async () => {
    const { deltas, result } = await run(
      local,
      request([
        {
          role: 'user',
          content: 'please\n/tool files_write {"path":"notes.md","content":"hi"}\n  /tool files_read {"path":"notes.md"}\n/tool files_read',
        },
      ]),
    );
    assert.deepEqual(result.toolCalls, [
      { id: 'call_1', name: 'files_write', args: { path: 'notes.md', content: 'hi' } },
      { id: 'call_2', name: 'files_read', args: { path: 'notes.md' } },
      { id: 'call_3', name: 'files_read', args: {} },
    ]);
    assert.equal(result.text, '');
    assert.deepEqual(deltas, []);
    assert.equal(result.finishReason, 'tool-calls');
    assert.ok(result.usage.outputTokens > 0);
  });

  it('takes a tool also by the name events show: files.write is files_write, server.tool is server__tool', async () => {
    const mcpTool: ModelTool = { name: 'catalog__search', description: 'Search the catalog', parameters: { type: 'object' } };
    const { result } = await run(
      local,
      request([{ role: 'user', content: '/tool files.write {"path":"a","content":"b"}\n/tool catalog.search {"q":"x"}\n/tool files_read {}' }], {
        tools: [writeTool, readTool, mcpTool],
      }),
    );
    assert.deepEqual(result.toolCalls, [
      { id: 'call_1', name: 'files_write', args: { path: 'a', content: 'b' } },
      { id: 'call_2', name: 'catalog__search', args: { q: 'x' } },
      { id: 'call_3', name: 'files_read', args: {} },
    ]);
    const unknown = await run(local, request([{ role: 'user', content: '/tool files.nope {}' }]));
    assert.equal(unknown.result.text, '(offline model) Unknown tool "files.nope". Available tools: files_write, files_read.');
  });

  it('numbers tool-call ids after the calls already in the conversation', async () => {
    const { result } = await run(
      local,
      request([
        { role: 'user', content: '/tool files_read {}' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'files_read', args: {} }] },
        { role: 'tool', toolCallId: 'call_1', toolName: 'files_read', content: 'x' },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: '/tool files_write {"path":"a"}' },
      ]),
    );
    assert.deepEqual(result.toolCalls, [{ id: 'call_2', name: 'files_write', args: { path: 'a' } }]);
  });

  it('answers in text, calling nothing, when a tool is unknown', async () => {
    const { result } = await run(local, request([{ role: 'user', content: '/tool files_write {"path":"a"}\n/tool nope {}' }]));
    assert.deepEqual(result.toolCalls, []);
    assert.equal(result.text, '(offline model) Unknown tool "nope". Available tools: files_write, files_read.');
    assert.equal(result.finishReason, 'stop');
  });

  it('answers in text when the arguments are not a JSON object', async () => {
    const bad = await run(local, request([{ role: 'user', content: '/tool files_write {path: notes.md}' }]));
    assert.deepEqual(bad.result.toolCalls, []);
    assert.match(bad.result.text, /^\(offline model\) Bad arguments for tool "files_write": expected a JSON object/);
    const array = await run(local, request([{ role: 'user', content: '/tool files_write [1,2]' }]));
    assert.match(array.result.text, /Bad arguments for tool "files_write"/);
  });

  it('a tool named when no tools are offered is unknown', async () => {
    const { result } = await run(local, request([{ role: 'user', content: '/tool files_write {}' }], { tools: [] }));
    assert.equal(result.text, '(offline model) Unknown tool "files_write". Available tools: none.');
  });

  it('summarises trailing tool results (first 200 characters of each)', async () => {
    const long = 'x'.repeat(250);
    const { deltas, result } = await run(
      local,
      request([
        { role: 'user', content: '/tool files_write {"path":"a"}\n/tool files_read {"path":"a"}' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_1', name: 'files_write', args: { path: 'a' } },
            { id: 'call_2', name: 'files_read', args: { path: 'a' } },
          ],
        },
        { role: 'tool', toolCallId: 'call_1', toolName: 'files_write', content: 'wrote 2 bytes' },
        { role: 'tool', toolCallId: 'call_2', toolName: 'files_read', content: long, isError: true },
      ]),
    );
    assert.equal(result.text, `(offline model) Tool results: files_write: wrote 2 bytes; files_read (error): ${'x'.repeat(200)}`);
    assert.deepEqual(result.toolCalls, []);
    assert.equal(result.finishReason, 'stop');
    assert.ok(deltas.length >= 3);
  });

  it('says so when there is no user message to answer', async () => {
    const { result } = await run(local, request([]));
    assert.equal(result.text, '(offline model) There is no user message to answer.');
  });

  it('maxOutputTokens cuts the reply with finish reason "length"', async () => {
    const { result } = await run(local, request([{ role: 'user', content: 'a long message with many words in it' }], { maxOutputTokens: 5 }));
    // 4 × 5 = 20 characters
    assert.equal(result.text, '(offline model) You ');
    assert.equal(result.finishReason, 'length');
  });

  it('delayMs makes it deterministic but slow: one pause per delta', async () => {
    const slow = new LocalModelProvider({ delayMs: 40 });
    const started = Date.now();
    const at: number[] = [];
    const result = await slow.stream(request([{ role: 'user', content: 'hello' }]), () => at.push(Date.now() - started));
    assert.equal(result.text, '(offline model) You said: hello');
    assert.equal(at.length, 5);
    assert.ok(Date.now() - started >= 190, `took ${Date.now() - started} ms`);
    assert.ok((at[0] ?? 0) >= 35 && (at[4] ?? 0) - (at[0] ?? 0) >= 150, `deltas at ${at.join(', ')}`);
  });

  it('an abort stops the slow stream with the signal reason', async () => {
    const slow = new LocalModelProvider({ delayMs: 50 });
    const controller = new AbortController();
    const reason = new Error('cancelled');
    setTimeout(() => controller.abort(reason), 120);
    const deltas: string[] = [];
    await assert.rejects(
      slow.stream(request([{ role: 'user', content: 'one two three four five six seven' }], { signal: controller.signal }), (d) => deltas.push(d)),
      (error) => error === reason,
    );
    assert.ok(deltas.length >= 1 && deltas.length < 5, `${deltas.length} deltas`);
  });
});
