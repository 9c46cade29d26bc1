import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../../db/connect';
import { AppError, RateLimitRefusal } from '../../domain/errors';
import type { RefusalHolds } from './refusal-holds';

/**
 * A fixed-window limit counted in `rate_limits` (rate-limiter-flexible's table), shared by every
 * API replica. A key this limit has refused is refused from this process's memory until its
 * window ends (`inMemoryBlockOnConsumed`), so a flood over it costs PostgreSQL nothing. Blocked
 * one past its points, not at them: a count given back (`consumeAll`) must not leave a block.
 * `name` (the key prefix) names the limit in refusals and the refusals metric.
 */
export function countedLimit(db: Db, name: string, points: number, durationSeconds: number, what: string): CountedLimit {
  const limiter = new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: name,
    points,
    duration: durationSeconds,
    inMemoryBlockOnConsumed: points + 1,
  });
  return { limiter, what };
}

/** A limiter and what it counts, for the refusal's message (`too many <what>`). */
export interface CountedLimit {
  limiter: RateLimiterPostgres;
  what: string;
}

/** One count of a request: a limit and the key it is counted under there. */
export interface Count {
  limit: CountedLimit;
  key: string;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Counts one request against every limit of `counts`, each under its own key: the first alone,
 * then the rest at once. A flood is refused by the first from memory, so the others are neither
 * counted nor given back: no write at all. Refused by any: 429 `rate_limited` named after the
 * refusing limit with the longest wait, answered after a hold (refusal-holds.ts) with
 * `retryAfter` net of it, once every point the request took is given back (a refused request
 * spends nothing). A failure of PostgreSQL with no refusal is 503 `database_unavailable`.
 */
export async function consumeAll(counts: readonly Count[], holds: RefusalHolds): Promise<void> {
  const consume = (c: Count) => c.limit.limiter.consume(c.key);
  const [head] = await Promise.allSettled(counts.slice(0, 1).map(consume));
  const results = head?.status === 'fulfilled' ? [head, ...(await Promise.allSettled(counts.slice(1).map(consume)))] : [head];
  let refusal: { limit: CountedLimit; res: RateLimiterRes } | undefined;
  let failed = false;
  for (const [i, r] of results.entries()) {
    if (!r || r.status === 'fulfilled') continue;
    if (!(r.reason instanceof RateLimiterRes)) failed = true;
    else if (!refusal || r.reason.msBeforeNext > refusal.res.msBeforeNext) refusal = { limit: counts[i]!.limit, res: r.reason };
  }
  if (!refusal && !failed) return;
  // Refused from memory (consumedPoints 0) or failed: nothing was counted there.
  const counted = counts.filter((_, i) => {
    const r = results[i];
    return r?.status === 'fulfilled' || (r?.reason instanceof RateLimiterRes && r.reason.consumedPoints > 0);
  });
  await Promise.all(counted.map((c) => c.limit.limiter.reward(c.key).catch(() => undefined)));
  if (!refusal) throw new AppError('database_unavailable', 'the rate limiter could not reach PostgreSQL');
  const holdMs = holds.draw();
  const retryAfter = seconds(refusal.res.msBeforeNext - holdMs);
  throw new RateLimitRefusal(refusal.limit.limiter.keyPrefix, `too many ${refusal.limit.what}; try again in ${retryAfter} s`, retryAfter, holdMs);
}
