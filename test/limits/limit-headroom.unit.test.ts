import assert from 'node:assert/strict';
import { LimitHeadroom } from '../../api/limit-headroom';

/** A clock the test moves. */
function clock() {
  let now = 1000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const SECOND = { points: 10, windowMs: 1000 };
const MINUTE = { points: 40, windowMs: 60_000 };

describe('limit headroom (requests let through ahead of their rate-limit count)', () => {
  it('a key never counted here waits for its count; once one came back with room, the next goes ahead', () => {
    const c = clock();
    const headroom = new LimitHeadroom(2, c.now);
    const first = headroom.enter('k', [SECOND, MINUTE]);
    assert.equal(first.ahead, false, 'nothing is known of the key yet');
    headroom.seen('k', [SECOND, MINUTE], [{ consumed: 1, endsAt: c.now() + 1000 }, { consumed: 1, endsAt: c.now() + 60_000 }]);
    first.settle();
    assert.equal(headroom.enter('k', [SECOND, MINUTE]).ahead, true);
  });

  it("goes ahead only while the known count, the requests being counted and this one fit half of every limit's points", () => {
    const c = clock();
    const headroom = new LimitHeadroom(10, c.now);
    headroom.enter('k', [SECOND, MINUTE]).settle();
    headroom.seen('k', [SECOND, MINUTE], [{ consumed: 2, endsAt: c.now() + 1000 }, { consumed: 2, endsAt: c.now() + 60_000 }]);
    // 2 counted, then 3 more fit half the second's 10 points; the 4th would make 6.
    const entered = Array.from({ length: 4 }, () => headroom.enter('k', [SECOND, MINUTE]));
    assert.deepEqual(entered.map((e) => e.ahead), [true, true, true, false]);
    // Every one of them settled without anything new seen: the known 2 still stands.
    for (const e of entered) e.settle();
    assert.equal(headroom.enter('k', [SECOND, MINUTE]).ahead, true);
  });

  it("a window that has ended counts as empty; a key at half a limit's points waits for its count", () => {
    const c = clock();
    const headroom = new LimitHeadroom(2, c.now);
    headroom.enter('k', [SECOND, MINUTE]).settle();
    headroom.seen('k', [SECOND, MINUTE], [{ consumed: 5, endsAt: c.now() + 1000 }, { consumed: 5, endsAt: c.now() + 60_000 }]);
    const full = headroom.enter('k', [SECOND, MINUTE]);
    assert.equal(full.ahead, false, 'half the second is used: the count decides');
    full.settle();
    c.advance(1000);
    const next = headroom.enter('k', [SECOND, MINUTE]);
    assert.equal(next.ahead, true, 'a new second');
    next.settle();
  });

  it('lets at most aheadMax requests of a key through ahead at once', () => {
    const c = clock();
    const headroom = new LimitHeadroom(2, c.now);
    headroom.enter('k', [MINUTE]).settle();
    headroom.seen('k', [MINUTE], [{ consumed: 0, endsAt: c.now() + 60_000 }]);
    const entered = Array.from({ length: 3 }, () => headroom.enter('k', [MINUTE]));
    assert.deepEqual(entered.map((e) => e.ahead), [true, true, false]);
    entered[0]!.settle();
    entered[0]!.settle(); // settling twice releases once
    const after = [headroom.enter('k', [MINUTE]), headroom.enter('k', [MINUTE])];
    assert.deepEqual(after.map((e) => e.ahead), [true, false]);
  });

  it('counts coming back out of order: the highest of a window stands, one of an older window is ignored', () => {
    const c = clock();
    const headroom = new LimitHeadroom(10, c.now);
    const booked = headroom.enter('k', [SECOND]);
    headroom.seen('k', [SECOND], [{ consumed: 4, endsAt: c.now() + 1000 }]);
    headroom.seen('k', [SECOND], [{ consumed: 3, endsAt: c.now() + 998 }]);
    booked.settle();
    const a = headroom.enter('k', [SECOND]);
    assert.equal(a.ahead, true, '4 known, this one makes 5: half');
    assert.equal(headroom.enter('k', [SECOND]).ahead, false, 'the 6th would be past half');
    a.settle();
    c.advance(1000);
    headroom.seen('k', [SECOND], [{ consumed: 5, endsAt: c.now() + 1000 }]); // the new second
    headroom.seen('k', [SECOND], [{ consumed: 1, endsAt: c.now() }]); // the old one's, late
    assert.equal(headroom.enter('k', [SECOND]).ahead, false, "half the new second's points are used");
  });

  it('a limit of one point is never gone ahead of: half of it is no request', () => {
    const c = clock();
    const headroom = new LimitHeadroom(2, c.now);
    headroom.enter('k', [{ points: 1, windowMs: 60_000 }]).settle();
    headroom.seen('k', [{ points: 1, windowMs: 60_000 }], [{ consumed: 0, endsAt: c.now() + 60_000 }]);
    assert.equal(headroom.enter('k', [{ points: 1, windowMs: 60_000 }]).ahead, false);
  });

  it('keeps keys apart and forgets a key whose windows have ended and that nothing is counting', () => {
    const c = clock();
    const headroom = new LimitHeadroom(2, c.now);
    headroom.enter('a', [SECOND]).settle();
    headroom.seen('a', [SECOND], [{ consumed: 1, endsAt: c.now() + 1000 }]);
    assert.equal(headroom.enter('b', [SECOND]).ahead, false, 'another key knows nothing of a');
    assert.equal(headroom.size, 2);
    c.advance(1000);
    assert.equal(headroom.size, 1, 'a is forgotten; b is still being counted');
  });
});
