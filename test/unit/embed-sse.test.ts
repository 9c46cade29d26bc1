import assert from 'node:assert/strict';
import { ReplyText, toTurnEvent } from '../../embed/src/chat/events';
import { SSEParser, type SSEEvent } from '../../embed/src/chat/sse';
import type { TurnEvent } from '../../sdk/src';

const stream = [
  ': keepalive\n\n',
  'id: 1\nevent: start\ndata: {"turnId":"trn_1"}\n\n',
  'id: 2\nevent: text\ndata: {"text":"Héllo"}\n\n',
  'id: 3\r\nevent: done\r\ndata: {"reply":"Héllo"}\r\n\r\n',
].join('');

function feed(chunks: string[]): SSEEvent[] {
  const parser = new SSEParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

describe('chat page SSE parser', () => {
  const whole = feed([stream]);

  it('decodes the contract wire format into typed events and skips keepalives', () => {
    assert.deepEqual(
      whole.map((e) => [e.id, e.event, toTurnEvent(e)]),
      [
        ['1', 'start', { type: 'start', turnId: 'trn_1' }],
        ['2', 'text', { type: 'text', text: 'Héllo' }],
        ['3', 'done', { type: 'done', reply: 'Héllo' }],
      ],
    );
  });

  it('gives the same events however the stream is cut into chunks, even inside a CRLF', () => {
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.slice(i, i + size));
      assert.deepEqual(feed(chunks), whole, `chunks of ${size}`);
    }
  });

  it('joins multi-line data, keeps the last id across events, and waits for the blank line', () => {
    const parser = new SSEParser();
    assert.deepEqual(parser.push('id: 7\ndata: a\ndata: b\n'), []);
    assert.deepEqual(parser.push('\ndata: c\n\n'), [
      { id: '7', event: 'message', data: 'a\nb' },
      { id: '7', event: 'message', data: 'c' },
    ]);
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
      { type: 'tool', name: 'knowledge_search', state: 'start' },
      { type: 'tool', name: 'knowledge_search', state: 'end', ok: true },
      { type: 'text', text: 'It is op' },
      { type: 'text', text: 'It is open 9–5.', reset: true },
      { type: 'text', text: ' Anything else?' },
    ]);
    assert.equal(shown, 'Let me check. It is open 9–5. Anything else?');
  });
});
