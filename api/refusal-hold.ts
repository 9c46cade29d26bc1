/**
 * Holds the 429 answers of request-rate limits for a moment before sending them (README: Limits).
 *
 * A refusal costs little, but a client that ignores `Retry-After` asks again the instant it is
 * answered: 200 such connections kept one API process's event loop busy answering 429s and a
 * well-behaved client of another workspace waited behind them (bench:limits, p99 19× its quiet
 * figure). Answering a refusal only after `holdMs` (never longer than the limit's own window)
 * slows such a loop to one request per connection per hold, and costs the process a timer. The
 * number of refusals held at once is capped, so a flood over very many connections still gets
 * its answers, at once, rather than holding sockets without bound.
 */
export class RefusalHold {
  private held = 0;

  constructor(
    private readonly holdMs: number,
    private readonly maxHeld: number,
  ) {}

  /** Waits `min(holdMs, windowMs)` before a refusal is answered; returns how long it waited. */
  async wait(windowMs: number): Promise<number> {
    const ms = Math.min(this.holdMs, Math.max(0, windowMs));
    if (ms === 0 || this.held >= this.maxHeld) return 0;
    this.held += 1;
    try {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return ms;
    } finally {
      this.held -= 1;
    }
  }
}
