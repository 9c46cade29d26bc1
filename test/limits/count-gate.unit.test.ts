import assert from 'node:assert/strict';
import { CountGate } from '../../api/count-gate';

/** An operation that records how many run at once and ends when `release` is called. */
function tracked() {
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const releases: Array<() => void> = [];
  const operation = (n: number) => async () => {
    running += 1;
    most = Math.max(most, running);
    order.push(n);
    await new Promise<void>((resolve) => releases.push(resolve));
    running -= 1;
    return n;
  };
  return { operation, order, releases, most: () => most };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('count gate (operations of one key at a time)', () => {
  it('runs at most perKey operations of one key at once, the rest in arrival order', async () => {
    const gate = new CountGate(2);
    const t = tracked();
    const all = Array.from({ length: 6 }, (_, n) => gate.run('k', t.operation(n)));
    await tick();
    assert.deepEqual(t.order, [0, 1], 'two start, four wait');
    for (let i = 0; i < 6; i++) {
      t.releases.shift()!();
      await tick();
    }
    assert.deepEqual(await Promise.all(all), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(t.order, [0, 1, 2, 3, 4, 5]);
    assert.equal(t.most(), 2);
    assert.equal(gate.size, 0, 'an idle gate holds nothing');
  });

  it('keys do not wait for each other, and a failed operation hands its slot on', async () => {
    const gate = new CountGate(1);
    const t = tracked();
    const a = gate.run('a', t.operation(1));
    const b = gate.run('b', t.operation(2));
    await tick();
    assert.deepEqual(t.order, [1, 2]);
    const failing = gate.run('c', () => Promise.reject(new Error('database down')));
    const next = gate.run('c', async () => 'after');
    await assert.rejects(failing, /database down/);
    assert.equal(await next, 'after');
    t.releases.forEach((r) => r());
    await Promise.all([a, b]);
    assert.equal(gate.size, 0);
  });
});
