import assert from 'node:assert/strict';
import { CountBatcher } from '../../api/count-batcher';

const tick = () => new Promise((r) => setImmediate(r));

/** A count whose calls are recorded (their batch sizes) and answered when the test says. */
function counter() {
  const sizes: number[] = [];
  const answers: Array<(outcomes: string[]) => void> = [];
  const count = (n: number) => {
    sizes.push(n);
    return new Promise<string[]>((resolve) => answers.push(resolve));
  };
  return { count, sizes, answers };
}

describe('count batcher (rate-limit counts of a key, batched)', () => {
  it('counts the first requests alone, and everyone who came meanwhile in one count, outcomes in arrival order', async () => {
    const batcher = new CountBatcher<string>(2, 64);
    const c = counter();
    const all = Array.from({ length: 7 }, () => batcher.run('k', c.count));
    await tick();
    assert.deepEqual(c.sizes, [1, 1], 'two go at once, alone');
    c.answers.shift()!(['a']);
    await tick();
    assert.deepEqual(c.sizes, [1, 1, 5], 'the five that waited are one count');
    c.answers.shift()!(['b']);
    c.answers.shift()!(['c1', 'c2', 'c3', 'c4', 'c5']);
    assert.deepEqual(await Promise.all(all), ['a', 'b', 'c1', 'c2', 'c3', 'c4', 'c5']);
    assert.equal(batcher.size, 0, 'an idle batcher holds nothing');
  });

  it('caps a batch, keeps keys apart, and hands a failure to every caller of its batch only', async () => {
    const batcher = new CountBatcher<string>(1, 2);
    const c = counter();
    const first = batcher.run('k', c.count);
    const waiting = Array.from({ length: 3 }, () => batcher.run('k', c.count));
    const other = batcher.run('other', async () => ['other']);
    assert.equal(await other, 'other', 'another key does not wait');
    await tick();
    assert.deepEqual(c.sizes, [1]);
    c.answers.shift()!(['first']);
    await tick();
    assert.deepEqual(c.sizes, [1, 2], 'at most two in a batch');
    c.answers.shift()!(undefined as unknown as string[]);
    await assert.rejects(waiting[0]!);
    await assert.rejects(waiting[1]!);
    await tick();
    c.answers.shift()!(['last']);
    assert.equal(await first, 'first');
    assert.equal(await waiting[2]!, 'last', 'the next batch is counted after a failed one');
    const failing = batcher.run('k', () => Promise.reject(new Error('database down')));
    await assert.rejects(failing, /database down/);
    assert.equal(batcher.size, 0);
  });
});
