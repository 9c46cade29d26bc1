import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { consumeAll, countedLimit } from '../../api/limits/counts';
import { RefusalHolds } from '../../api/limits/refusal-holds';
import { createDb, type Db } from '../../db/connect';
import { RateLimitRefusal } from '../../domain/errors';
import { fixture } from '../support/fixture';

describe('rate limits: a refusal is decided at once, with its hold and retryAfter net of it', () => {
  let db: Db;
  before(() => {
    db = createDb({ url: fixture().databaseUrl, poolMax: 2 });
  });
  after(() => db.destroy());

  it('the counting call rejects at once with plain data: the limit, its hold, and the wait less the hold', async () => {
    const HOLD_MS = 600;
    const name = `refusal-${randomBytes(4).toString('hex')}`;
    const counts = [{ limit: countedLimit(db, name, 1, 60, 'tests'), key: 'k' }];
    const holds = new RefusalHolds(HOLD_MS, 10);
    await consumeAll(counts, holds);
    const started = performance.now();
    const refusal = await consumeAll(counts, holds).then(
      () => assert.fail('the second request of a 1-point limit was admitted'),
      (e: unknown) => e,
    );
    assert.ok(performance.now() - started < HOLD_MS * 0.5 - 100, 'the handler waited for the hold');
    assert.ok(refusal instanceof RateLimitRefusal, String(refusal));
    assert.equal(refusal.limit, name);
    assert.ok(refusal.holdMs >= HOLD_MS * 0.5 && refusal.holdMs <= HOLD_MS * 1.5, `hold ${refusal.holdMs} ms`);
    // The minute's wait, less the hold: 59 or 60 s.
    assert.ok(refusal.retryAfter !== undefined && refusal.retryAfter >= 58 && refusal.retryAfter <= 60, `retryAfter ${refusal.retryAfter}`);
    assert.match(refusal.message, new RegExp(`too many tests; try again in ${refusal.retryAfter} s`));
  });

  it('a request refused by one limit gives back what it took from the others', async () => {
    const prefix = `refund-${randomBytes(4).toString('hex')}`;
    const narrow = countedLimit(db, `${prefix}-narrow`, 1, 60, 'narrow');
    const wide = countedLimit(db, `${prefix}-wide`, 100, 60, 'wide');
    const holds = new RefusalHolds(0, 0);
    const both = [{ limit: narrow, key: 'k' }, { limit: wide, key: 'k' }];
    await consumeAll(both, holds);
    for (let i = 0; i < 3; i++) await assert.rejects(consumeAll(both, holds), RateLimitRefusal);
    assert.equal((await wide.limiter.get('k'))?.consumedPoints, 1, 'the wide limit holds only the admitted request');
  });
});
