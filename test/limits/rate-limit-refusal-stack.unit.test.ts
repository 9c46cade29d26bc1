import assert from 'node:assert/strict';
import { AppError, RateLimitRefusal } from '../../domain/errors';

/** A stack line of a captured frame (`    at fn (file:line:col)`). */
const frames = (stack: string | undefined) => (stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)).length;

describe('a rate-limit refusal carries no stack trace; other errors keep theirs', () => {
  it('a refusal has no frames, and errors made after it (an AppError, a plain Error) still have them', () => {
    const refusal = new RateLimitRefusal('key-burst', 'too many requests; try again in 1 s', 1);
    assert.equal(frames(refusal.stack), 0, `a refusal captured its stack: ${refusal.stack}`);
    assert.equal(refusal.code, 'rate_limited');
    assert.equal(refusal.status, 429);
    assert.equal(refusal.message, 'too many requests; try again in 1 s');
    assert.equal(refusal.retryAfter, 1);
    // The limit is put back: what is logged with its stack (a 5xx, an unexpected error) keeps it.
    assert.ok(frames(new AppError('internal_error', 'boom').stack) > 0, 'an AppError made after a refusal has no stack');
    assert.ok(frames(new Error('boom').stack) > 0, 'an Error made after a refusal has no stack');
  });
});
