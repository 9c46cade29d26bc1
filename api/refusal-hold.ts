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
 *
 * A hold is decided at once and carried by the refusal (`RateLimitRefusal.hold`): the handlers
 * that refused return at once. A connection's first refusal is answered when its hold is over
 * (middleware/held-answers.ts); its later ones are answered at once and the connection is not
 * read until the hold is over instead (connection-holds.ts). Held inside the handlers, each refusal
 * kept its whole middleware chain alive for the hold, about 15 KB, and in its answer still about
 * 9 KB: a flood's few hundred held refusals made every young-generation GC of the API copy them
 * (bench:limits).
 */
export class RefusalHold {
  private held = 0;

  constructor(
    private readonly holdMs: number,
    private readonly maxHeld: number,
  ) {}

  /**
   * Starts the hold of one refusal: `holdMs` ± 50 %, or none while `maxHeld` are held. Answers how
   * long it holds (`heldMs`, 0 for none) and a promise of its end (`over`, never rejected).
   */
  start(): { heldMs: number; over: Promise<void> } {
    const ms = Math.round(this.holdMs * (0.5 + Math.random()));
    if (ms === 0 || this.held >= this.maxHeld) return { heldMs: 0, over: Promise.resolve() };
    this.held += 1;
    const over = new Promise<void>((resolve) =>
      setTimeout(() => {
        this.held -= 1;
        resolve();
      }, ms),
    );
    return { heldMs: ms, over };
  }
}
