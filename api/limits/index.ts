import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Config } from '../../config/env';
import type { Db } from '../../db/connect';
import type { LeasesRepository } from '../../db/repositories/leases';
import { RateLimitRefusal } from '../../domain/errors';
import type { ApiState } from '../context';
import { AuthFailures } from './auth-failures';
import { consumeAll, countedLimit } from './counts';
import { LeaseKeeper } from './leases';
import { RefusalHolds } from './refusal-holds';

export type { AuthFailures } from './auth-failures';

type LimitsConfig = Pick<
  Config,
  | 'KEY_BURST_PER_SECOND' | 'KEY_REQUESTS_PER_MINUTE' | 'KEY_STREAMS_MAX' | 'KEY_UPLOADS_MAX' | 'RATE_LIMIT_HOLD_MS' | 'RATE_LIMIT_HOLD_MAX'
  | 'PUBLIC_RATE_WINDOW_SECONDS' | 'PUBLIC_CHAT_PER_VISITOR' | 'PUBLIC_CHAT_PER_ADDRESS' | 'PUBLIC_CHAT_PER_TOKEN' | 'PUBLIC_READS_PER_ADDRESS'
  | 'WEBHOOK_PER_HOOK' | 'DIAGNOSTICS_PER_MINUTE' | 'AUTH_FAILURES_PER_ADDRESS' | 'AUTH_FAILURES_WINDOW_SECONDS'
>;

/** What a route declares it is limited by (`limit` in routing.ts): a slot of its API key held while its response is open, or the public reads of its client's address. */
export type RouteLimit = 'streams' | 'uploads' | 'public-reads';

/**
 * When a stream or upload slot frees is unknown (a stream lasts as long as its turn): the refusal
 * says to come back after a few seconds.
 */
const SLOT_RETRY_AFTER_SECONDS = 5;

/** Keys stay short and carry no client text (the table's key is varchar(255)); an API key's text is never stored. */
export const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);

/**
 * Every limit of the API (docs/limits.md). Request counts live in PostgreSQL and slots are leases
 * there, so every replica shares them; failed credentials are counted per process. A refusal is
 * 429 `rate_limited` with `Retry-After`, naming the limit.
 */
export function createLimits(deps: { db: Db; leases: LeasesRepository; config: LimitsConfig; onError: (err: unknown) => void }) {
  const { db, config } = deps;
  const holds = new RefusalHolds(config.RATE_LIMIT_HOLD_MS, config.RATE_LIMIT_HOLD_MAX);
  const window = config.PUBLIC_RATE_WINDOW_SECONDS;
  const keyBurst = countedLimit(db, 'key-burst', config.KEY_BURST_PER_SECOND, 1, 'requests with this API key in one second');
  const keyMinute = countedLimit(db, 'key-minute', config.KEY_REQUESTS_PER_MINUTE, 60, 'requests with this API key in one minute');
  const chatVisitor = countedLimit(db, 'chat-visitor', config.PUBLIC_CHAT_PER_VISITOR, window, 'messages from this visitor');
  const chatAddress = countedLimit(db, 'chat-address', config.PUBLIC_CHAT_PER_ADDRESS, window, 'messages from this address');
  const chatAgent = countedLimit(db, 'chat-agent', config.PUBLIC_CHAT_PER_TOKEN, window, 'messages to this agent');
  const reads = countedLimit(db, 'public-read', config.PUBLIC_READS_PER_ADDRESS, window, 'requests from this address');
  const webhooks = countedLimit(db, 'webhook', config.WEBHOOK_PER_HOOK, window, 'requests to this webhook');
  const probes = countedLimit(db, 'diagnostics', config.DIAGNOSTICS_PER_MINUTE, 60, 'diagnostics probes from this workspace');
  const leases = new LeaseKeeper(deps.leases, deps.onError);
  const publicRead = (address: string) => consumeAll([{ limit: reads, key: digest(address) }], holds);

  /** Middleware: the route's response holds one of its API key's `kind` slots until it closes. */
  const slot = (kind: 'streams' | 'uploads'): Middleware<ApiState> => {
    const max = kind === 'streams' ? config.KEY_STREAMS_MAX : config.KEY_UPLOADS_MAX;
    const what = kind === 'streams' ? 'event streams' : 'uploads';
    return async (ctx, next) => {
      const keyId = ctx.state.keyId;
      if (!keyId) throw new Error(`a ${kind} slot on a route without an API key`);
      const release = await leases.take(keyId, kind, max);
      if (!release) throw new RateLimitRefusal(`key-${kind}`, `this API key has ${max} ${what} open, the most it may; try again when one has ended`, SLOT_RETRY_AFTER_SECONDS);
      // 'close' comes when the response has been sent or the client went away, whichever is first.
      ctx.res.once('close', release);
      if (ctx.req.socket.destroyed) release(); // the client left while the lease was taken
      await next();
    };
  };

  return {
    /** One request of an API key (`key`: its digest): its second first, then its minute. */
    apiKey: (key: string) => consumeAll([{ limit: keyBurst, key }, { limit: keyMinute, key }], holds),
    /** One public chat message: its client address first, then its (agent, visitor) and its agent. */
    publicChat: (input: { agentId: string; userId: string; address: string }) =>
      consumeAll(
        [
          { limit: chatAddress, key: digest(input.address) },
          { limit: chatVisitor, key: `${input.agentId}:${digest(input.userId)}` },
          { limit: chatAgent, key: input.agentId },
        ],
        holds,
      ),
    /** One inbound webhook request, per webhook (its address is counted by the route's `public-reads`). */
    webhook: (webhookId: string) => consumeAll([{ limit: webhooks, key: webhookId }], holds),
    /** One diagnostics probe of a workspace. */
    diagnostics: (workspaceId: string) => consumeAll([{ limit: probes, key: workspaceId }], holds),
    /** Middleware for a route's declared limit. */
    route(limit: RouteLimit): Middleware<ApiState> {
      if (limit !== 'public-reads') return slot(limit);
      return async (ctx, next) => {
        await publicRead(ctx.ip);
        await next();
      };
    },
    /** Middleware outside the error handler: the delayed 429 (refusal-holds.ts). */
    answerAfterHold: holds.answerAfterHold,
    /** Failed credentials per client address, in this process's memory (auth-failures.ts). */
    failures: new AuthFailures({ perAddress: config.AUTH_FAILURES_PER_ADDRESS, windowSeconds: config.AUTH_FAILURES_WINDOW_SECONDS }),
  };
}

export type Limits = ReturnType<typeof createLimits>;
