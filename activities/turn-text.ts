import type { TurnEvent } from '../domain/turn-events';

/**
 * Streams one model step's text to the event log in small batches, and makes a retried step
 * seamless where it can: `shown` starts as what an earlier attempt of the same step already
 * streamed. While the new attempt repeats that text, nothing is sent; once it goes further, only
 * the new part is sent; if it says something else, one `text` event with `reset: true` carries
 * the whole text so far, so consumers replace what they showed.
 */
export class StepTextStream {
  private produced = '';
  private shown: string;
  private timer: NodeJS.Timeout | undefined;
  /** When the last batch was cut (performance.now()). */
  private lastFlush = Number.NEGATIVE_INFINITY;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  constructor(
    alreadyShown: string,
    private readonly append: (events: TurnEvent[]) => Promise<boolean>,
    private readonly flushMs: number,
    private readonly onFlush: () => void = () => undefined,
    /** Called once, with the first failure: the attempt is doomed (its caller stops the model call). */
    private readonly onFailure: (err: Error) => void = () => undefined,
  ) {
    this.shown = alreadyShown;
  }

  /** Why this attempt can no longer write, once it cannot. */
  get failed(): Error | undefined {
    return this.failure;
  }

  get text(): string {
    return this.produced;
  }

  /**
   * Batches of up to `flushMs`, except that a delta after a quiet spell of `flushMs` (the first
   * of a step above all) is sent at once instead of waiting `flushMs` for company.
   */
  push(delta: string): void {
    this.produced += delta;
    if (this.timer) return;
    if (performance.now() - this.lastFlush >= this.flushMs) return this.flush();
    this.timer = setTimeout(() => this.flush(), this.flushMs);
  }

  private flush(): void {
    this.timer = undefined;
    this.lastFlush = performance.now();
    this.enqueue(false);
  }

  /** Sends whatever is left and settles the step's text exactly on what was produced. */
  async end(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.enqueue(true);
    await this.chain;
    if (this.failure) throw this.failure;
  }

  /** Stops sending (the attempt failed); nothing queued after this is written. */
  abandon(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Every link of the chain handles its own failure: a rejected append (the database restarting,
   * say) must never sit in the chain as an unhandled rejection — it would take the process down.
   * It becomes `failure`, which `end()` throws, so the attempt fails and Temporal retries it.
   */
  private enqueue(final: boolean): void {
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      const event = this.next(final);
      if (!event) return;
      this.onFlush();
      try {
        if (!(await this.append([event]))) this.fail(new Error('superseded: another attempt owns this turn, or it has ended'));
      } catch (err) {
        this.fail(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.abandon();
    this.onFailure(err);
  }

  private next(final: boolean): TurnEvent | undefined {
    const { produced, shown } = this;
    if (produced === shown) return undefined;
    if (produced.startsWith(shown)) {
      this.shown = produced;
      return { type: 'text', text: produced.slice(shown.length) };
    }
    // The consumer shows more than this attempt has produced so far: wait, unless it is over.
    if (shown.startsWith(produced) && !final) return undefined;
    this.shown = produced;
    return { type: 'text', text: produced, reset: true };
  }
}
