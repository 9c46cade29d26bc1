import assert from 'node:assert/strict';
import { decodeTurnNotification } from '../../db/turns/notification';

const text = (t: string) => `{"text": "${t}", "type": "text"}`;
const payload = (o: Record<string, unknown>) => JSON.stringify({ v: 1, turnId: 'turn_a', ...o });

describe('turn notification payloads: decoded strictly, anything doubtful read instead', () => {
  it('an older worker’s payload, the turn id alone, wakes the turn with nothing carried', () => {
    assert.deepEqual(decodeTurnNotification('turn_a'), { turnId: 'turn_a' });
  });

  it('carried events get their seqs from the range, their data kept as sent', () => {
    const n = decodeTurnNotification(payload({ first: 4, last: 5, events: [['text', text('a')], ['done', '{"type": "done", "reply": "a"}']] }));
    assert.deepEqual(n, {
      turnId: 'turn_a',
      appended: {
        first: 4,
        last: 5,
        events: [
          { seq: 4, type: 'text', data: text('a') },
          { seq: 5, type: 'done', data: '{"type": "done", "reply": "a"}' },
        ],
      },
    });
  });

  it('a range without events (too big to carry) is kept as a range', () => {
    assert.deepEqual(decodeTurnNotification(payload({ first: 4, last: 9 })), { turnId: 'turn_a', appended: { first: 4, last: 9 } });
  });

  for (const [what, body] of [
    ['fewer events than seqs', { first: 4, last: 5, events: [['text', text('a')]] }],
    ['a line break in the data (it would end the SSE field)', { first: 4, last: 4, events: [['text', '{"text": "a"}\nevent: done\ndata: {}']] }],
    ['data that is not one object', { first: 4, last: 4, events: [['text', '"a"']] }],
    ['an unknown event type', { first: 4, last: 4, events: [['text\nid: 99', text('a')]] }],
    ['a range that ends before it starts', { first: 5, last: 4 }],
    ['seq 0', { first: 0, last: 0 }],
    ['a later format', { v: 2, first: 4, last: 4, events: [['text', text('a')]] }],
  ] as const) {
    it(`${what}: only the turn id is kept, so its streams read`, () => {
      assert.deepEqual(decodeTurnNotification(payload(body)), { turnId: 'turn_a' });
    });
  }

  it('a payload without a readable turn id wakes nobody', () => {
    for (const p of ['', '{not json', '{"v": 1, "first": 1, "last": 1}', '{"turnId": ""}', '{"turnId": 7}']) assert.equal(decodeTurnNotification(p), undefined, p);
  });
});
