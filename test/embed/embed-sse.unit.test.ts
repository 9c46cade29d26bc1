import assert from 'node:assert/strict';
import { activityLine, ReplyText, toTurnEvent } from '../../embed/src/chat/events';
import { readSSE, type SSEMessage, type TurnEvent } from '../../sdk/src';

const stream = [
  ': keepalive\n\n',
  'id: 1\nevent: start\ndata: {"turnId":"trn_1"}\n\n',
  'id: 2\nevent: text\ndata: {"text":"Héllo"}\n\n',
  'id: 3\r\nevent: done\r\ndata: {"reply":"Héllo"}\r\n\r\n',
].join('');

/** What the chat page's TurnFollower reads from a body delivering exactly these chunks. */
async function feed(chunks: string[]): Promise<SSEMessage[]> {
  const utf8 = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(utf8.encode(chunk));
      controller.close();
    },
  });
  const out: SSEMessage[] = [];
  for await (const message of readSSE(body)) out.push(message);
  return out;
}

describe('chat page SSE reading (the SDK reader)', () => {
  it('decodes the contract wire format into typed events and skips keepalives', async () => {
    assert.deepEqual(
      (await feed([stream])).map((e) => [e.id, e.event, toTurnEvent(e)]),
      [
        ['1', 'start', { type: 'start', turnId: 'trn_1' }],
        ['2', 'text', { type: 'text', text: 'Héllo' }],
        ['3', 'done', { type: 'done', reply: 'Héllo' }],
      ],
    );
  });

  it('gives the same events however the stream is cut into chunks, even inside a CRLF', async () => {
    const whole = await feed([stream]);
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.slice(i, i + size));
      assert.deepEqual(await feed(chunks), whole, `chunks of ${size}`);
    }
  });

  it('joins multi-line data, takes the type from the data without an event field, and waits for the blank line', async () => {
    const events = await feed(['id: 7\ndata: {"type":"text",\ndata: "text":"a"}\n', '\ndata: {"type":"done","reply":"a"}\n\n', 'data: {"type":"text","text":"cut"}\n']);
    assert.deepEqual(
      events.map((e) => [e.id, toTurnEvent(e)]),
      [
        ['7', { type: 'text', text: 'a' }],
        [undefined, { type: 'done', reply: 'a' }],
      ],
    );
  });

  it('ignores events it cannot use instead of showing them', () => {
    assert.equal(toTurnEvent({ id: '1', event: 'text', data: 'not json' }), undefined);
    assert.equal(toTurnEvent({ id: '1', event: 'mystery', data: '{}' }), undefined);
    assert.equal(toTurnEvent({ id: '1', event: 'text', data: '{"text":5}' }), undefined);
  });
});

describe('chat page reply text', () => {
  function replay(events: TurnEvent[]): string {
    const text = new ReplyText();
    for (const e of events) text.apply(e);
    return text.text;
  }

  it('a reset replaces only the text since the last tool call, as the visitor should see it', () => {
    const shown = replay([
      { type: 'text', text: 'Let me check. ' },
      { type: 'tool', name: 'knowledge.search', state: 'start' },
      { type: 'tool', name: 'knowledge.search', state: 'end', ok: true },
      { type: 'text', text: 'It is op' },
      { type: 'text', text: 'It is open 9–5.', reset: true },
      { type: 'text', text: ' Anything else?' },
    ]);
    assert.equal(shown, 'Let me check. It is open 9–5. Anything else?');
  });
});

describe('chat page activity line', () => {
  it('reads the tool names events show (files.write, knowledge.search), not the model names', () => {
    assert.equal(activityLine(null, 'files.write'), 'Working with files…');
    assert.equal(activityLine(null, 'knowledge.search'), 'Searching knowledge…');
    assert.equal(activityLine(null, 'plan'), 'Planning…');
    assert.equal(activityLine(null, 'lookup_order'), 'Working…');
    assert.equal(activityLine(null, null), null);
  });
});
