/** One limit of a set, as the headroom needs it: its points per window, and the window's length (ms). */
export interface LimitWindow {
  points: number;
  windowMs: number;
}

/**
 * What a count said of one limit: its window's count with the counted requests in it, and when
 * that window ends (ms since the epoch: the limiter decides on `Date.now()` whether a window has
 * ended, so this does on the same clock).
 */
export interface WindowCount {
  consumed: number;
  endsAt: number;
}

interface KeyState {
  /** Per limit of the set: the last count seen of its current window. */
  known: Array<WindowCount | undefined>;
  /** Requests of the key whose counts are on their way (sent or waiting to be), let through or not. */
  counting: number;
  /** Of those, the ones let through before their count came back. */
  ahead: number;
}

/**
 * Which requests of a key may start before their rate-limit count comes back (README: Limits,
 * "counted behind").
 *
 * A count is a round trip to PostgreSQL before the route's own. For a key far from its limits
 * the answer is known in advance: this process saw its window's count when the last count came
 * back, and knows how many of its requests are being counted since. When that count, plus the
 * requests being counted, plus this one, is within half of every limit's points, the request
 * starts at once and is counted behind it (the count is still made, and a key that reaches a
 * limit is refused as before). With one API replica this lets through exactly the requests the
 * count would have: what this process knows is an upper bound of the window's count (a count
 * taken back or a window ended only lowers it). With several, the others' requests since the last
 * count here are not known: the other half of the points is room for them, and at most `aheadMax`
 * requests of a key go ahead at once per process, so a key gets past a limit only when replicas
 * spend more than its other half between two of its counts here, and then by at most that many
 * per replica.
 */
export class LimitHeadroom {
  private readonly keys = new Map<string, KeyState>();
  private swept = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly aheadMax: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A request of `key` whose count against `limits` is about to be made: whether it may start
   * before the count comes back. Either way it is booked as being counted until `settle` is
   * called. A key is always counted against the same limits, in the same order.
   */
  enter(key: string, limits: readonly LimitWindow[]): { ahead: boolean; settle: () => void } {
    const now = this.now();
    this.forgetIdle(now);
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { known: [], counting: 0, ahead: 0 }));
    const entry = state;
    const ahead = entry.ahead < this.aheadMax && limits.every((limit, i) => {
      const known = entry.known[i];
      if (!known) return false; // never counted here: the count decides
      const consumed = known.endsAt > now ? known.consumed : 0;
      return consumed + entry.counting + 1 <= limit.points * FAR_FROM_LIMIT;
    });
    entry.counting += 1;
    if (ahead) entry.ahead += 1;
    let settled = false;
    return {
      ahead,
      settle: () => {
        if (settled) return;
        settled = true;
        entry.counting -= 1;
        if (ahead) entry.ahead -= 1;
      },
    };
  }

  /**
   * What a count of `key` came back with, per limit of `limits` (`undefined`: that limit was not
   * counted). Counts of one key can come back out of order: within one window the highest count
   * stands, and a count of a window already replaced is ignored.
   */
  seen(key: string, limits: readonly LimitWindow[], counts: ReadonlyArray<WindowCount | undefined>): void {
    const entry = this.keys.get(key);
    if (!entry) return;
    for (const [i, count] of counts.entries()) {
      const limit = limits[i];
      if (!count || !limit) continue;
      const known = entry.known[i];
      // The same window seen twice ends at about the same time; the next one ends at least a window later.
      if (!known || count.endsAt > known.endsAt + limit.windowMs / 2) entry.known[i] = count;
      else if (count.endsAt > known.endsAt - limit.windowMs / 2) known.consumed = Math.max(known.consumed, count.consumed);
    }
  }

  /** Keys held (for tests: keys with nothing being counted and every window ended are dropped). */
  get size(): number {
    this.sweep(this.now());
    return this.keys.size;
  }

  /** Drops idle keys at most once a second, so the map holds about the keys of the longest window. */
  private forgetIdle(now: number): void {
    if (now - this.swept >= SWEEP_EVERY_MS) this.sweep(now);
  }

  private sweep(now: number): void {
    this.swept = now;
    for (const [key, entry] of this.keys) {
      if (entry.counting === 0 && entry.known.every((w) => !w || w.endsAt <= now)) this.keys.delete(key);
    }
  }
}

const SWEEP_EVERY_MS = 1000;

/**
 * How much of a limit's points a key may have used, as this process knows it, and still go ahead
 * of its count: half. The other half is room for what other replicas let through since the last
 * count here, which this process cannot know: a client that sends one request at a time through a
 * load balancer spread over up to half a limit's points in replicas is never let past it.
 */
const FAR_FROM_LIMIT = 0.5;
