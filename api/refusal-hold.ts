/**
 * Holds the 429 answers of request-rate limits for a moment before sending them (README: Limits).
 *
 * A refusal costs little, but a client that ignores `Retry-After` asks again the instant it is
 * answered: 200 such connections kept one API process's event loop busy answering 429s and a
 * well-behaved client of another workspace waited behind them (bench:limits, p99 19× its quiet
 * figure). Answering a refusal only after a hold slows such a loop to about one request per
 * connection per hold, and costs the process a timer. The hold is drawn within ±50 % of `holdMs`,
 * not cut at the end of the limit's window: refusals released together at a window's end
 * came back together, and that herd, once a second, was the well-behaved client's p99 (bench:limits
 * 8×). ±50 %, not less: a flood's clients start together, so their first refusals are held
 * together, and the spread of that first hold is the spread of the wave that comes back (±25 %
 * sent 200 of them back within half a second). The number of refusals held at once is capped, so a flood over very many connections still
 * gets its answers, at once, rather than holding sockets without bound.
 */
export class RefusalHold {
  private held = 0;

  constructor(
    private readonly holdMs: number,
    private readonly maxHeld: number,
  ) {}

  /** Waits `holdMs` ± 50 % before a refusal is answered; returns how long it waited. */
  async wait(): Promise<number> {
    const ms = Math.round(this.holdMs * (0.5 + Math.random()));
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
