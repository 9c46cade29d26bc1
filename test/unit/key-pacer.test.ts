import assert from 'node:assert/strict';
import { keyPacer, pacer as startPacer } from '../../api/limits/key-pacer';

/** A pacer on a clock the test moves. */
function paced(intervalMs: number, burst: number) {
  let now = 1_000_000;
  const pacer = startPacer(intervalMs, burst, () => now);
  return { pacer, advance: (ms: number) => (now += ms) };
}

describe('key pacer (what the limits let through, spread over time)', () => {
  it('starts a burst of one key at once, then one every interval', () => {
    const { pacer } = paced(50, 3);
    const delays = Array.from({ length: 6 }, () => pacer.delay('k'));
    assert.deepEqual(delays, [0, 0, 0, 50, 100, 150]);
  });

  it('does not slow a key that keeps within its rate, nor one key for another', () => {
    const { pacer, advance } = paced(50, 1);
    for (let i = 0; i < 10; i++) {
      assert.equal(pacer.delay('calm'), 0, `request ${i} of a key at its own pace`);
      assert.equal(pacer.delay(`flood-${i % 2}`), 0);
      pacer.delay(`flood-${i % 2}`);
      advance(100);
    }
    assert.equal(pacer.delay('other'), 0, 'a key never seen starts at once while others are queued');
  });

  it('gives a key its burst back once it has been idle, and forgets idle keys', () => {
    const { pacer, advance } = paced(50, 2);
    for (let i = 0; i < 4; i++) pacer.delay('k');
    assert.equal(pacer.size(), 1);
    advance(200 + 100);
    assert.deepEqual([pacer.delay('k'), pacer.delay('k'), pacer.delay('k')], [0, 0, 50]);
    advance(2000);
    assert.equal(pacer.size(), 0, 'an idle pacer holds nothing');
  });

  it('paces the API-key limits at the per-second rate, a quarter of a second at once', () => {
    const pacer = keyPacer(20);
    const delays = Array.from({ length: 7 }, () => pacer.delay('k'));
    assert.deepEqual(delays.slice(0, 5), [0, 0, 0, 0, 0]);
    assert.ok(Math.abs(delays[5]! - 50) < 1 && Math.abs(delays[6]! - 100) < 1, `then 50 ms apart: ${delays.join(', ')}`);
  });
});
