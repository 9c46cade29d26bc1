import type { Next } from 'koa';
import type { ApiContext } from '../context';

/**
 * The delayed 429 of request-rate limits. A client that ignores `Retry-After` and asks again the
 * instant it is answered keeps the API busy answering it; answered after a hold it asks at most
 * about once per hold and connection. Holds are drawn within ±50 % of `holdMs`, so refused
 * clients do not come back together; at most `maxHeld` at once, the rest answered at once, so a
 * flood over very many connections does not hold sockets without bound.
 */
export class RefusalHolds {
  private held = 0;

  constructor(
    private readonly holdMs: number,
    private readonly maxHeld: number,
  ) {}

  /** The hold of one refusal being decided (ms; 0: answered at once); its place is freed by `answerAfterHold`. */
  draw(): number {
    const ms = Math.round(this.holdMs * (0.5 + Math.random()));
    if (ms === 0 || this.held >= this.maxHeld) return 0;
    this.held += 1;
    return ms;
  }

  /**
   * Middleware outside the error handler: a refusal it rendered with a hold (`ctx.state.holdMs`)
   * is sent once the hold is over. Every handler inside has returned by then, so the hold keeps
   * only the request and this frame alive.
   */
  readonly answerAfterHold = async (ctx: ApiContext, next: Next): Promise<void> => {
    await next();
    const ms = ctx.state.holdMs;
    if (!ms) return;
    try {
      await new Promise((resolve) => setTimeout(resolve, ms));
    } finally {
      this.held -= 1;
    }
  };
}
