import assert from 'node:assert/strict';
import { SseEventMeter } from '../../activities/outbound/sse-event-meter';

/** The largest event size the meter reports over `chunks`, fed in order. */
function largest(...chunks: string[]): number {
  const meter = new SseEventMeter();
  return Math.max(0, ...chunks.map((c) => meter.feed(Buffer.from(c, 'utf8'))));
}

describe('SseEventMeter', () => {
  it('counts each event apart, whatever line ends it uses', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const small = `data: 1${eol}${eol}`;
      const big = `event: message${eol}data: ${'x'.repeat(100)}${eol}${eol}`;
      // The big event alone: its two line ends one byte each (CRLF too), the blank line not counted.
      const lineEnds = eol.length * 3;
      assert.equal(largest(small, big, small), big.length - lineEnds + 2, JSON.stringify(eol));
    }
  });

  it('keeps counting across chunks until the blank line, comments included', () => {
    assert.equal(largest(': keep', '-alive\n', 'data: ab', 'cd\n', '\n'), ': keep-alive\ndata: abcd\n'.length);
    // A CRLF split between two chunks is one line end, not a blank line.
    assert.equal(largest('data: a\r', '\ndata: b\r\n\r\n'), 'data: a\ndata: b\n'.length);
  });

  it('an event that never ends grows without bound', () => {
    const meter = new SseEventMeter();
    let size = 0;
    for (let i = 0; i < 10; i++) size = meter.feed(Buffer.from(`data: ${'x'.repeat(1000)}\n`));
    assert.equal(size, 10 * 1007);
  });
});
