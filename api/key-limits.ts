import type { Middleware } from 'koa';
import type { Config } from '../config/env';
import type { Db } from '../db/connect';
import type { LeasesRepository } from '../db/repositories/leases';
import { RateLimitRefusal } from '../domain/errors';
import type { ApiState } from './context';
import { LeaseKeeper } from './leases';
import { type KeyPacer, keyPacer } from './key-pacer';
import { type CountedLimit, consumeAll, limitCounts, postgresLimiter } from './rate-limits';
import type { RefusalHold } from './refusal-hold';

type KeyLimitsConfig = Pick<Config, 'KEY_BURST_PER_SECOND' | 'KEY_REQUESTS_PER_MINUTE' | 'KEY_STREAMS_MAX' | 'KEY_UPLOADS_MAX'>;

/** What a route holds for as long as its response is open: an event stream, or an upload. */
export type ConcurrencyKind = 'streams' | 'uploads';

/**
 * When a stream or upload slot frees is unknown (a stream lasts as long as its turn): the refusal
 * says to come back after a few seconds.
 */
const CONCURRENCY_RETRY_AFTER_SECONDS = 5;

/**
 * The limits of one API key (README: Limits): requests per second and per minute, and how many
 * event streams and uploads it has open at once. All are counted in PostgreSQL, so every API
 * replica shares them; a refusal is 429 `rate_limited` with `Retry-After` and `retryAfter`.
 */
export class KeyLimits {
  /** Per second (burst) and per minute, counted together (`consumeAll`). */
  private readonly requests: readonly CountedLimit[];
  private readonly keeper: LeaseKeeper;
  private readonly gate = limitCounts();
  private readonly pacer: KeyPacer;

  constructor(
    db: Db,
    leases: LeasesRepository,
    private readonly config: KeyLimitsConfig,
    private readonly refusalHold: RefusalHold,
    onError: (err: unknown) => void,
  ) {
    // The key prefixes name the limits in refusals and in the refusals metric (api/metrics.ts).
    this.requests = [
      { limiter: postgresLimiter(db, 'key-burst', config.KEY_BURST_PER_SECOND, 1), what: 'requests with this API key in one second' },
      { limiter: postgresLimiter(db, 'key-minute', config.KEY_REQUESTS_PER_MINUTE, 60), what: 'requests with this API key in one minute' },
    ];
    this.keeper = new LeaseKeeper(leases, onError);
    this.pacer = keyPacer(config.KEY_BURST_PER_SECOND);
  }

  /**
   * One request of a key (`key`: what it is counted under): within its one-second burst and its
   * per-minute budget, both counted at once (one round trip before the route, not two); then, once
   * let through, started at the key's pace in this process (key-pacer.ts).
   */
  async request(key: string): Promise<void> {
    await consumeAll(this.requests, key, this.refusalHold, this.gate);
    await this.pacer.wait(key);
  }

  /** Middleware for a route whose response holds one of the key's `kind` slots until it closes. */
  hold(kind: ConcurrencyKind): Middleware<ApiState> {
    const limit = kind === 'streams' ? this.config.KEY_STREAMS_MAX : this.config.KEY_UPLOADS_MAX;
    const what = kind === 'streams' ? 'event streams' : 'uploads';
    return async (ctx, next) => {
      const keyId = ctx.state.keyId;
      if (!keyId) throw new Error(`hold(${kind}) on a route without an API key`);
      const release = await this.keeper.take(keyId, kind, limit);
      if (!release) {
        throw new RateLimitRefusal(`key-${kind}`, `this API key has ${limit} ${what} open, the most it may; try again when one has ended`, CONCURRENCY_RETRY_AFTER_SECONDS);
      }
      // 'close' comes when the response has been sent or the client went away, whichever is first.
      ctx.res.once('close', release);
      if (ctx.req.socket.destroyed) release(); // the client left while the lease was taken
      await next();
    };
  }
}
