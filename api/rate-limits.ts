import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config/env';
import type { Db } from '../db/connect';
import { AppError, RateLimitRefusal, type RefusalHoldEnd } from '../domain/errors';
import { CountBatcher } from './count-batcher';
import { LimitHeadroom, type WindowCount } from './limit-headroom';
import type { RefusalHold } from './refusal-hold';

/** The limits of public traffic, per `PUBLIC_RATE_WINDOW_SECONDS`. */
type PublicLimitsConfig = Pick<
  Config,
  'PUBLIC_RATE_WINDOW_SECONDS' | 'PUBLIC_CHAT_PER_VISITOR' | 'PUBLIC_CHAT_PER_ADDRESS' | 'PUBLIC_CHAT_PER_TOKEN' | 'PUBLIC_READS_PER_ADDRESS' | 'WEBHOOK_PER_HOOK'
>;

/** Keys stay short and carry no visitor text: the table's key is varchar(255). */
const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);

/**
 * Rate limits of the public routes, counted in PostgreSQL (`rate_limits`, rate-limiter-flexible's
 * table) so every API replica shares them. A refusal is 429 `rate_limited` with `retryAfter`.
 */
export class PublicRateLimits {
  private readonly visitor: CountedLimit;
  private readonly address: CountedLimit;
  private readonly agent: CountedLimit;
  private readonly reads: CountedLimit;
  private readonly webhooks: CountedLimit;
  private readonly gate = limitCounts();

  constructor(
    db: Db,
    config: PublicLimitsConfig,
    private readonly hold: RefusalHold,
  ) {
    const limit = (keyPrefix: string, points: number, what: string): CountedLimit => ({
      limiter: postgresLimiter(db, keyPrefix, points, config.PUBLIC_RATE_WINDOW_SECONDS),
      what,
    });
    this.visitor = limit('chat-visitor', config.PUBLIC_CHAT_PER_VISITOR, 'messages from this visitor');
    this.address = limit('chat-address', config.PUBLIC_CHAT_PER_ADDRESS, 'messages from this address');
    this.agent = limit('chat-agent', config.PUBLIC_CHAT_PER_TOKEN, 'messages to this agent');
    this.reads = limit('public-read', config.PUBLIC_READS_PER_ADDRESS, 'requests from this address');
    this.webhooks = limit('webhook', config.WEBHOOK_PER_HOOK, 'requests to this webhook');
  }

  /**
   * One chat message: counted per (agent, visitor), per client address and per agent, all three at
   * once (one round trip, not three); a message one of them refuses costs the others nothing.
   */
  async chat(input: { agentId: string; userId: string; address: string }): Promise<void> {
    const counts = [
      { limit: this.visitor, key: `${input.agentId}:${digest(input.userId)}` },
      { limit: this.address, key: digest(input.address) },
      { limit: this.agent, key: input.agentId },
    ];
    await consumeEach(counts, this.hold, this.gate);
  }

  /** One inbound webhook request, per webhook (the address is counted by `read` before the lookup). */
  async webhook(webhookId: string): Promise<void> {
    await consumeEach([{ limit: this.webhooks, key: webhookId }], this.hold, this.gate);
  }

  /** Any other public request (metadata, history, resuming, inbound webhooks), per client address. */
  async read(address: string): Promise<void> {
    await consumeEach([{ limit: this.reads, key: digest(address) }], this.hold, this.gate);
  }
}

/**
 * A fixed-window limiter counted in `rate_limits` (rate-limiter-flexible's table, migration 006).
 * A key that has used all its points is refused from this process's memory until its window ends,
 * so a flood costs PostgreSQL one write per key and window, not one per request.
 */
export function postgresLimiter(db: Db, keyPrefix: string, points: number, durationSeconds: number): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix,
    points,
    duration: durationSeconds,
    inMemoryBlockOnConsumed: points,
  });
}

/** A limiter and what it counts, for the refusal's message (`too many <what>`). */
export interface CountedLimit {
  limiter: RateLimiterPostgres;
  what: string;
}

/**
 * rate-limiter-flexible's own check of its in-memory blocks (public in its JavaScript, missing
 * from its types): a key over its points is refused from memory until its window ends.
 */
function blockedInMemory(limiter: RateLimiterPostgres, key: string): boolean {
  const blocks = limiter as unknown as { getInMemoryBlockMsBeforeExpire(rlKey: string): number };
  return blocks.getInMemoryBlockMsBeforeExpire(limiter.getKey(key)) > 0;
}

/** What one count says of one request: let through, refused by a limit, or not counted (the database failed). */
type CountOutcome = 'admitted' | 'failed' | { limit: CountedLimit; msBeforeNext: number; refunds: Promise<unknown> };

/** A limit and the key one request is counted under by it. */
interface KeyedLimit {
  limit: CountedLimit;
  key: string;
}

/**
 * Counts `n` requests (a batch, in arrival order) against every limit of `counts`, each under its
 * key, at once: one statement per limit, whatever `n`. Answers one outcome per request: the first
 * ones that every limit still had room for are admitted, the rest refused by the limit with the
 * longest wait. Every limit that counted the batch gets back the points of the requests not
 * admitted, so a refused request spends nothing. When a limit already refuses its key from this
 * process's memory, only the limits that do are asked: a flood over a limit costs no query.
 */
async function countBatch(counts: readonly KeyedLimit[], n: number, seen: (windows: Array<WindowCount | undefined>) => void): Promise<CountOutcome[]> {
  // Checked once the batch's turn has come: a count ahead of it may have put the block in memory.
  const blocked = counts.filter((c) => blockedInMemory(c.limit.limiter, c.key));
  const counted = blocked.length > 0 ? blocked : counts;
  const results = await Promise.allSettled(counted.map((c) => c.limit.limiter.consume(c.key, n)));
  let fit = n;
  let failed = false;
  let refusal: { limit: CountedLimit; res: RateLimiterRes } | undefined;
  const reachedStore: KeyedLimit[] = [];
  // What each limit's window holds now, for the headroom (limit-headroom.ts); refused from memory: full.
  const windows: Array<WindowCount | undefined> = counts.map(() => undefined);
  const saw = (count: KeyedLimit, res: RateLimiterRes) => {
    const consumed = res.consumedPoints > 0 ? res.consumedPoints : count.limit.limiter.points;
    windows[counts.indexOf(count)] = { consumed, endsAt: Date.now() + res.msBeforeNext };
  };
  for (const [i, r] of results.entries()) {
    const count = counted[i]!;
    if (r.status === 'fulfilled') {
      reachedStore.push(count);
      saw(count, r.value);
      continue;
    }
    if (!(r.reason instanceof RateLimiterRes)) {
      failed = true;
      continue;
    }
    // consumedPoints is the window's count with the batch in it; 0 when refused from memory (nothing counted).
    const res = r.reason;
    saw(count, res);
    if (res.consumedPoints > 0) reachedStore.push(count);
    const room = res.consumedPoints > 0 ? count.limit.limiter.points - (res.consumedPoints - n) : 0;
    fit = Math.min(fit, Math.max(0, room));
    if (!refusal || res.msBeforeNext > refusal.res.msBeforeNext) refusal = { limit: count.limit, res };
  }
  seen(windows);
  const admitted = failed ? 0 : fit;
  const back = n - admitted;
  const refunds =
    back > 0 && reachedStore.length > 0
      ? Promise.all(reachedStore.map((c) => c.limit.limiter.reward(c.key, back).catch(() => undefined)))
      : Promise.resolve();
  // Over a limit is the answer even when another limit could not be counted: the client must wait either way.
  return Array.from({ length: n }, (_, i): CountOutcome => {
    if (i < admitted) return 'admitted';
    if (refusal && i >= fit) return { limit: refusal.limit, msBeforeNext: refusal.res.msBeforeNext, refunds };
    return 'failed';
  });
}

/** Counts one request of `key` against every limit of `limits` at once (`consumeEach`, one key for all). */
export function consumeAll(limits: readonly CountedLimit[], key: string, hold: RefusalHold, gate: LimitCounts): Promise<void> {
  return consumeEach(
    limits.map((limit) => ({ limit, key })),
    hold,
    gate,
  );
}

/**
 * Counts one request against every limit of `counts`, each under its own key, at once (one round
 * trip of latency, not one per limit), in a batch with the requests of the same keys that wait
 * meanwhile (`gate`, count-batcher.ts). A refusal by any limit is one 429 `rate_limited`, thrown
 * at once with a hold drawn from `hold` (its `hold`, refusal-hold.ts), named after the refusing
 * limit with the longest wait; answered after the hold, its `retryAfter` is what is left of that
 * wait then (answered at once, connection-holds.ts: the wait or the hold, whichever is longer).
 * Any other failure is `database_unavailable`. A key whose last count left room for this request
 * returns at once and is counted behind it (limit-headroom.ts).
 */
async function consumeEach(counts: readonly KeyedLimit[], hold: RefusalHold, gate: LimitCounts): Promise<void> {
  const gateKey = counts.map((c) => `${c.limit.limiter.keyPrefix}:${c.key}`).join('+');
  const windows = counts.map(({ limit: { limiter } }) => ({ points: limiter.points, windowMs: limiter.duration * 1000 }));
  const booked = gate.headroom.enter(gateKey, windows);
  const counting = gate.batches.run(gateKey, (n) => countBatch(counts, n, (seen) => gate.headroom.seen(gateKey, windows, seen)));
  const counted = counting.finally(booked.settle);
  if (booked.ahead) {
    // Started already: the count still lands (a key that reaches a limit is refused from then on);
    // what it says of this request, or its failure, changes nothing now.
    counted.catch(() => undefined);
    return;
  }
  const outcome = await counted;
  if (outcome === 'admitted') return;
  if (outcome === 'failed') throw new AppError('database_unavailable', 'the rate limiter could not reach PostgreSQL');
  // Decided now; answered after the hold and the refunds (a retry must find the points given back),
  // or at once on a connection refused before (connection-holds.ts), with a wait that covers both.
  const { heldMs, over } = hold.start();
  const { limiter, what } = outcome.limit;
  const refusal = (retryAfter: number, end?: RefusalHoldEnd) => new RateLimitRefusal(limiter.keyPrefix, `too many ${what}; try again in ${retryAfter} s`, retryAfter, end);
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  throw refusal(seconds(outcome.msBeforeNext - heldMs), {
    over: Promise.all([over, outcome.refunds]),
    atOnce: () => refusal(seconds(Math.max(outcome.msBeforeNext, heldMs))),
  });
}

/** Counts one action of `key` against one limit (`consumeEach` of one). */
export function consume(limiter: RateLimiterPostgres, key: string, what: string, hold: RefusalHold, gate: LimitCounts): Promise<void> {
  return consumeEach([{ limit: { limiter, what }, key }], hold, gate);
}

/**
 * The counts of a set of limiters in one process: batched per key (count-batcher.ts), and a key
 * far from its limits let through before its count comes back (limit-headroom.ts).
 */
export interface LimitCounts {
  batches: CountBatcher<CountOutcome>;
  headroom: LimitHeadroom;
}

/**
 * A key's counts in flight at once: two, so a second count can start while the first is on its
 * way back, and a flood of one key holds at most two pooled connections per limit; whoever comes
 * meanwhile is counted in the next batch, of at most 64 requests. At most two requests of a key
 * are let through ahead of their counts at once.
 */
export function limitCounts(): LimitCounts {
  return { batches: new CountBatcher<CountOutcome>(2, 64), headroom: new LimitHeadroom(2) };
}
