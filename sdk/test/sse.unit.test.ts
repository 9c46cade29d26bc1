import assert from 'node:assert/strict';
import { readSSE, type SSEMessage } from '../src';
import { within } from './support/test-server';

const utf8 = new TextEncoder();

/** A byte stream delivering exactly the given chunks, then closing. */
function chunks(...parts: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(typeof part === 'string' ? utf8.encode(part) : part);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>, signal?: AbortSignal): Promise<SSEMessage[]> {
  const out: SSEMessage[] = [];
  for await (const message of readSSE(stream, signal)) out.push(message);
  return out;
}

/** A stream that sends `first` and then stays open until cancelled; `cancelled` settles on cancel. */
function openStream(first: string): { stream: ReadableStream<Uint8Array>; cancelled: Promise<void> } {
  let onCancel: () => void = () => undefined;
  const cancelled = new Promise<void>((resolve) => {
    onCancel = resolve;
  });
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(utf8.encode(first));
    },
    cancel() {
      onCancel();
    },
  });
  return { stream, cancelled };
}

describe('SDK SSE decoder', () => {
  it('parses id and event, skips comments, joins multi-line data with \\n', async () => {
    const wire =
      ': keepalive\n\n' +
      'id: 1\nevent: start\ndata: {"type":"start","turnId":"t1"}\n\n' +
      ': keepalive\n' +
      'id: 2\nevent: text\ndata: line one\ndata: line two\n\n' +
      'data: no id or event\n\n';
    assert.deepEqual(await collect(chunks(wire)), [
      { id: '1', event: 'start', data: '{"type":"start","turnId":"t1"}' },
      { id: '2', event: 'text', data: 'line one\nline two' },
      { data: 'no id or event' },
    ]);
  });

  it('reassembles events split at any byte, including inside a field name and a UTF-8 character', async () => {
    const wire = 'id: 7\nevent: text\ndata: café ☕\n\n';
    const bytes = utf8.encode(wire);
    const expected = [{ id: '7', event: 'text', data: 'café ☕' }];
    for (let cut = 1; cut < bytes.length; cut++) {
      assert.deepEqual(await collect(chunks(bytes.slice(0, cut), bytes.slice(cut))), expected, `cut at byte ${cut}`);
    }
    const oneByteAtATime = Array.from(bytes, (byte) => Uint8Array.of(byte));
    assert.deepEqual(await collect(chunks(...oneByteAtATime)), expected);
  });

  it('accepts CRLF line endings and drops an unterminated last event', async () => {
    assert.deepEqual(await collect(chunks('event: done\r\ndata: ok\r\n\r\n', 'data: cut off')), [{ event: 'done', data: 'ok' }]);
  });

  it('ends without an error when the signal aborts, and cancels the stream', async () => {
    const { stream, cancelled } = openStream('data: first\n\n');
    const controller = new AbortController();
    const seen: string[] = [];
    await within(
      2000,
      (async () => {
        for await (const message of readSSE(stream, controller.signal)) {
          seen.push(message.data);
          setTimeout(() => controller.abort(), 20);
        }
      })(),
      'loop end after abort',
    );
    assert.deepEqual(seen, ['first']);
    await within(2000, cancelled, 'stream cancel');
  });

  it('breaking out of the loop cancels the stream', async () => {
    const { stream, cancelled } = openStream('data: a\n\ndata: b\n\n');
    for await (const message of readSSE(stream)) {
      assert.equal(message.data, 'a');
      break;
    }
    await within(2000, cancelled, 'stream cancel');
  });
});
