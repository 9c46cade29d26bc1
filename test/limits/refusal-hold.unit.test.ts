import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { answerAfterHold } from '../../api/middleware/held-answers';
import { errorHandler } from '../../api/middleware/errors';
import type { ApiState } from '../../api/context';
import { ConnectionHolds } from '../../api/connection-holds';
import { RefusalHold } from '../../api/refusal-hold';
import { RateLimitRefusal } from '../../domain/errors';
import { createLogger } from '../../infra/logger';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('refusal hold', () => {
  it('holds HOLD_MS ± 50 % from the moment it starts, and at most maxHeld at once', async () => {
    const hold = new RefusalHold(200, 2);
    const started = performance.now();
    const [a, b, c] = [hold.start(), hold.start(), hold.start()];
    for (const h of [a, b]) assert.ok(h.heldMs >= 100 && h.heldMs <= 300, `held ${h.heldMs} ms`);
    assert.equal(c.heldMs, 0, 'the third is over the cap: answered at once');
    await Promise.all([a.over, b.over]);
    assert.ok(performance.now() - started >= Math.max(a.heldMs, b.heldMs) - 5, 'over once the longer hold has passed');
    assert.ok(hold.start().heldMs > 0, 'an ended hold frees its place');
  });

  it("a held refusal's handlers have all returned while its answer waits for the hold", async () => {
    const app = new Koa<ApiState>();
    app.silent = true;
    let handlersDone = 0;
    app.use(answerAfterHold);
    app.use(errorHandler(createLogger('silent'), new ConnectionHolds()));
    app.use(async (_ctx, next) => {
      try {
        await next();
      } finally {
        handlersDone = performance.now();
      }
    });
    app.use(() => {
      throw new RateLimitRefusal('test', 'too many tests', 1, { over: sleep(400), atOnce: () => new RateLimitRefusal('test', 'too many tests, at once', 2) });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const sent = performance.now();
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const answered = performance.now();
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'rate_limited');
      assert.ok(answered - sent >= 390, `answered after ${Math.round(answered - sent)} ms, before the hold was over`);
      assert.ok(handlersDone - sent < 200, `the handlers returned after ${Math.round(handlersDone - sent)} ms: they waited for the hold`);
    } finally {
      server.close();
    }
  });
});
