import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { errorHandler } from '../../api/middleware/errors';
import type { ApiState } from '../../api/context';
import { RefusalHolds } from '../../api/limits/refusal-holds';
import { RateLimitRefusal } from '../../domain/errors';
import { createLogger } from '../../infra/logger';

/** An app that refuses every request with `refusal`, its answer held by `holds`; `handlersDone` is when its handlers returned. */
async function refusingApp(holds: RefusalHolds, refusal: () => RateLimitRefusal) {
  const app = new Koa<ApiState>();
  app.silent = true;
  const timing = { handlersDone: 0 };
  app.use(holds.answerAfterHold);
  app.use(errorHandler(createLogger('silent')));
  app.use(async (_ctx, next) => {
    try {
      await next();
    } finally {
      timing.handlersDone = performance.now();
    }
  });
  app.use(() => {
    throw refusal();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, timing, close: () => server.close() };
}

describe('refusal holds', () => {
  it('draws HOLD_MS ± 50 %, at most maxHeld at once; a held answer frees its place once sent', async () => {
    const holds = new RefusalHolds(200, 2);
    const drawn = [holds.draw(), holds.draw(), holds.draw()];
    for (const ms of drawn.slice(0, 2)) assert.ok(ms >= 100 && ms <= 300, `held ${ms} ms`);
    assert.equal(drawn[2], 0, 'the third is over the cap: answered at once');
    const app = await refusingApp(holds, () => new RateLimitRefusal('test', 'too many tests', 1, 50));
    try {
      // The two drawn above are still held: a refusal rendered with a hold frees one place when answered.
      await fetch(app.url);
      assert.ok(holds.draw() > 0, 'an answered hold frees its place');
    } finally {
      app.close();
    }
  });

  it("a held refusal's handlers have all returned while its answer waits for the hold", async () => {
    const holds = new RefusalHolds(400, 10);
    const app = await refusingApp(holds, () => new RateLimitRefusal('test', 'too many tests', 1, holds.draw()));
    try {
      const sent = performance.now();
      const res = await fetch(app.url);
      const answered = performance.now();
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'rate_limited');
      assert.ok(answered - sent >= 190, `answered after ${Math.round(answered - sent)} ms, before the shortest hold was over`);
      assert.ok(app.timing.handlersDone - sent < 150, `the handlers returned after ${Math.round(app.timing.handlersDone - sent)} ms: they waited for the hold`);
    } finally {
      app.close();
    }
  });
});
