import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config/env';
import type { Db } from '../db/connect';
import { AppError, RateLimitRefusal } from '../domain/errors';
import { CountGate } from './count-gate';
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
  private readonly visitor: RateLimiterPostgres;
  private readonly address: RateLimiterPostgres;
  private readonly agent: RateLimiterPostgres;
  private readonly reads: RateLimiterPostgres;
  private readonly webhooks: RateLimiterPostgres;
  private readonly gate = new CountGate(COUNTS_IN_FLIGHT_PER_KEY);

  constructor(
    db: Db,
    config: PublicLimitsConfig,
    private readonly hold: RefusalHold,
  ) {
    const limiter = (keyPrefix: string, points: number) => postgresLimiter(db, keyPrefix, points, config.PUBLIC_RATE_WINDOW_SECONDS);
    this.visitor = limiter('chat-visitor', config.PUBLIC_CHAT_PER_VISITOR);
    this.address = limiter('chat-address', config.PUBLIC_CHAT_PER_ADDRESS);
    this.agent = limiter('chat-agent', config.PUBLIC_CHAT_PER_TOKEN);
    this.reads = limiter('public-read', config.PUBLIC_READS_PER_ADDRESS);
    this.webhooks = limiter('webhook', config.WEBHOOK_PER_HOOK);
  }

  /** One chat message: counted per (agent, visitor), per client address and per agent. */
  async chat(input: { agentId: string; userId: string; address: string }): Promise<void> {
    await consume(this.visitor, `${input.agentId}:${digest(input.userId)}`, 'messages from this visitor', this.hold, this.gate);
    await consume(this.address, digest(input.address), 'messages from this address', this.hold, this.gate);
    await consume(this.agent, input.agentId, 'messages to this agent', this.hold, this.gate);
  }

  /** One inbound webhook request, per webhook (the address is counted by `read` before the lookup). */
  async webhook(webhookId: string): Promise<void> {
    await consume(this.webhooks, webhookId, 'requests to this webhook', this.hold, this.gate);
  }

  /** Any other public request (metadata, history, resuming, inbound webhooks), per client address. */
  async read(address: string): Promise<void> {
    await consume(this.reads, digest(address), 'requests from this address', this.hold, this.gate);
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

/**
 * Counts one action of `key` against every limit of `limits` at once: one round trip of latency,
 * not one per limit. A refusal by any is one 429 `rate_limited`, answered after `hold` has held it
 * once (refusal-hold.ts), named after the refusing limit with the longest wait; its `retryAfter`
 * is what is left of that wait once the hold has passed. A refused request spends no point of the
 * limits that let it through. When a limit already refuses the key from this process's memory,
 * only the limits that do are counted: a flood over a limit costs no query and spends none of the
 * other limits' points. Any other failure is `database_unavailable`.
 */
export async function consumeAll(limits: readonly CountedLimit[], key: string, hold: RefusalHold, gate: CountGate): Promise<void> {
  // Checked once the key's turn at the gate has come: a count ahead of it may have put the block in memory.
  const gateKey = `${limits.map((l) => l.limiter.keyPrefix).join('+')}:${key}`;
  const { counted, results } = await gate.run(gateKey, async () => {
    const blocked = limits.filter((l) => blockedInMemory(l.limiter, key));
    const counted = blocked.length > 0 ? blocked : limits;
    return { counted, results: await Promise.allSettled(counted.map((l) => l.limiter.consume(key))) };
  });
  let refusal: { limit: CountedLimit; res: RateLimiterRes } | undefined;
  let failed = false;
  for (const [i, r] of results.entries()) {
    if (r.status === 'fulfilled') continue;
    if (!(r.reason instanceof RateLimiterRes)) failed = true;
    else if (!refusal || r.reason.msBeforeNext > refusal.res.msBeforeNext) refusal = { limit: counted[i]!, res: r.reason };
  }
  // Over a limit is the answer even when another limit could not be counted: the client must wait either way.
  if (refusal) {
    // The limits that let it through get their point back, during the hold.
    const refunds = counted.filter((_, i) => results[i]!.status === 'fulfilled').map((l) => l.limiter.reward(key).catch(() => undefined));
    const held = await hold.wait();
    await Promise.all(refunds);
    const retryAfter = Math.max(1, Math.ceil((refusal.res.msBeforeNext - held) / 1000));
    throw new RateLimitRefusal(refusal.limit.limiter.keyPrefix, `too many ${refusal.limit.what}; try again in ${retryAfter} s`, retryAfter);
  }
  if (failed) throw new AppError('database_unavailable', 'the rate limiter could not reach PostgreSQL');
}

/** Counts one action of `key` against one limit (`consumeAll` of one). */
export function consume(limiter: RateLimiterPostgres, key: string, what: string, hold: RefusalHold, gate: CountGate): Promise<void> {
  return consumeAll([{ limiter, what }], key, hold, gate);
}

/**
 * Counts of one key (of one set of limits) in flight at once per process (count-gate.ts). Two: a
 * second count can start while the first is on its way back, and a flood of one key holds at most
 * two pooled connections until its block is in memory.
 */
export const COUNTS_IN_FLIGHT_PER_KEY = 2;
