/**
 * Spreads the requests one key's limits let through over time, in this process (README: Limits).
 *
 * The limits are fixed windows shared by every replica: a key flooding far above them gets its
 * whole second's allowance the instant its window opens, and when several keys flood at once their
 * windows open together. On a small machine that pile (bench:limits: 60 reads and 20 uploads at
 * once) is what a well-behaved client of another workspace waited behind. The pacer lets a key's
 * first `burst` requests start at once and each one after them `intervalMs` after the last: the
 * key's own per-second rate, so a key within its limits is never slowed for long, and one over
 * them costs the process its allowance spread evenly instead of in one lump.
 *
 * The schedule is a virtual clock per key (the generic cell rate algorithm used as a shaper): a
 * key whose schedule has emptied is forgotten, so the map holds only the keys of the last second.
 */
export class KeyPacer {
  /** Per key: when its schedule would be empty again (ms, on `now`'s clock). */
  private readonly due = new Map<string, number>();
  /** When idle keys were last dropped. */
  private swept = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly intervalMs: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How long (ms) the next request of `key` waits before it starts; the wait is booked. */
  delay(key: string): number {
    const now = this.now();
    this.forgetIdle(now);
    const due = Math.max(this.due.get(key) ?? now, now);
    const start = Math.max(now, due - (this.burst - 1) * this.intervalMs);
    this.due.set(key, due + this.intervalMs);
    return start - now;
  }

  /** Waits the next request of `key`'s turn. */
  async wait(key: string): Promise<void> {
    const ms = this.delay(key);
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Keys whose schedule is not empty (for tests: an idle pacer holds nothing). */
  get size(): number {
    this.sweep(this.now());
    return this.due.size;
  }

  /** Drops keys whose schedule has emptied, at most once a second: the map holds the keys of about the last second. */
  private forgetIdle(now: number): void {
    if (now - this.swept >= SWEEP_EVERY_MS) this.sweep(now);
  }

  private sweep(now: number): void {
    this.swept = now;
    for (const [key, due] of this.due) if (due <= now) this.due.delete(key);
  }
}

const SWEEP_EVERY_MS = 1000;

/**
 * The pacer of the API-key request limits: the key's per-second rate, a quarter of a second's
 * allowance at once. 200 a second (the default) lets 50 start together and then one every 5 ms.
 */
export function keyPacer(burstPerSecond: number): KeyPacer {
  return new KeyPacer(1000 / burstPerSecond, Math.max(1, Math.ceil(burstPerSecond / 4)));
}
