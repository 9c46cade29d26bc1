import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseUnavailable } from '../infra/outage';

/**
 * How a model step rides out PostgreSQL being away (docs/operations.md: Outages): the model call
 * it already pays for goes on, and its writes wait for the database instead of failing the attempt.
 */
export interface OutagePolicy {
  /** `MODEL_STEP_DB_OUTAGE_MS`: how long one outage may last, from the first failed write, before the step gives up. */
  maxMs: number;
  /** Characters of text the step may hold unwritten meanwhile (config/worker-tuning.ts). */
  maxBufferedChars: number;
}

/** The first wait after a failed write; it doubles up to `LONGEST_WAIT_MS`. */
const FIRST_WAIT_MS = 100;
/** A failover's end is noticed within a second. */
const LONGEST_WAIT_MS = 1000;

/** Why a write gave up: the database stayed away longer than the step may wait. */
function outageTooLong(maxMs: number, cause: unknown): Error {
  return new Error(`PostgreSQL did not answer for ${maxMs} ms; the model step gives up and is retried`, { cause });
}

/**
 * Runs `write` until it succeeds. A failure that means the database is away — the one rule the
 * API answers 503 `database_unavailable` by (infra/outage.ts) — is retried after a backoff, until
 * `maxMs` have passed since the first; `onOutage` runs after each such failure (the caller
 * heartbeats, or notes that the failed write may have landed). Any other failure, the outage
 * outlasting `maxMs`, or `signal` aborting (the attempt was cancelled or lost its heartbeat)
 * throws at once. `write` is called anew each time, so it can send what is pending by then.
 */
export async function writeThroughOutage<T>(write: () => Promise<T>, opts: { maxMs: number; signal: AbortSignal; onOutage?: () => void }): Promise<T> {
  let since: number | undefined;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await write();
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      since ??= performance.now();
      // Bounded: each turn waits, and gives up once the next try would start past `maxMs`.
      if (performance.now() - since + wait > opts.maxMs) throw outageTooLong(opts.maxMs, err);
      opts.onOutage?.();
      await sleep(wait, undefined, { signal: opts.signal });
    }
  }
}
