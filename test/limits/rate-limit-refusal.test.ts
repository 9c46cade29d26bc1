import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { limitCounts, postgresLimiter, consumeAll } from '../../api/rate-limits';
import { RefusalHold } from '../../api/refusal-hold';
import { createDb, type Db } from '../../db/connect';
import { RateLimitRefusal } from '../../domain/errors';
import { fixture } from '../support/fixture';

describe('rate limits: a refusal is decided at once and answered after its hold', () => {
  let db: Db;
  before(() => {
    db = createDb({ url: fixture().databaseUrl, poolMax: 2 });
  });
  after(() => db.destroy());

  it('the counting call rejects at once; its hold is over after the hold, with retryAfter net of it (or all of the wait, answered at once)', async () => {
    const HOLD_MS = 600;
    const limits = [{ limiter: postgresLimiter(db, `refusal-${randomBytes(4).toString('hex')}`, 1, 60), what: 'tests' }];
    const hold = new RefusalHold(HOLD_MS, 10);
    const gate = limitCounts();
    await consumeAll(limits, 'k', hold, gate);
    const started = performance.now();
    const refusal = await consumeAll(limits, 'k', hold, gate).then(
      () => assert.fail('the second request of a 1-point limit was admitted'),
      (e: unknown) => e,
    );
    const thrownAfter = performance.now() - started;
    assert.ok(refusal instanceof RateLimitRefusal, String(refusal));
    assert.ok(thrownAfter < HOLD_MS * 0.5 - 100, `thrown after ${Math.round(thrownAfter)} ms: the handler waited for the hold`);
    assert.ok(refusal.hold, 'a held refusal carries the end of its hold');
    // Answered at once instead (a connection refused before): the whole minute's wait, from now.
    const atOnce = refusal.hold.atOnce();
    assert.ok(atOnce.retryAfter !== undefined && atOnce.retryAfter >= 59 && atOnce.retryAfter <= 60, `retryAfter at once ${atOnce.retryAfter}`);
    assert.match(atOnce.message, new RegExp(`try again in ${atOnce.retryAfter} s`));
    assert.equal(atOnce.limit, refusal.limit);
    await refusal.hold.over;
    const answerAfter = performance.now() - started;
    assert.ok(answerAfter >= HOLD_MS * 0.5 - 5, `answerable after ${Math.round(answerAfter)} ms, before the shortest hold`);
    // The minute's wait, less the hold already spent: 59 or 60 s.
    assert.ok(refusal.retryAfter !== undefined && refusal.retryAfter >= 58 && refusal.retryAfter <= 60, `retryAfter ${refusal.retryAfter}`);
  });
});
