import type { TurnEvent } from '../domain/turn-events';
import { type OutagePolicy, writeThroughOutage } from './outage-tolerant-writes';

/** What a step's text stream writes with, and how it rides out the database being away. */
export interface StepTextSink {
  /** Writes a batch; false when the turn ended or another attempt holds it (the attempt stops). */
  append: (events: TurnEvent[]) => Promise<boolean>;
  /** The step's text as consumers show it now: read after a failed write, which may have landed. */
  readShown: () => Promise<string>;
  outage: OutagePolicy;
  /** Stops waiting out an outage: the attempt was cancelled or lost its heartbeat. */
  signal: AbortSignal;
}

/** Text that reached the event log: what consumers show now, and how much of `produced` it covers. */
interface Written {
  event: TurnEvent;
  shown: string;
  upTo: number;
}

/**
 * Streams one model step's text to the event log in small batches, and makes a retried step
 * seamless where it can: `shown` starts as what an earlier attempt of the same step already
 * streamed. While the new attempt repeats that text, nothing is sent; once it goes further, only
 * the new part is sent; if it says something else, one `text` event with `reset: true` carries
 * the whole text so far, so consumers replace what they showed.
 *
 * While the database is away the text is held, in order, and written in one batch once it
 * answers (`writeThroughOutage`); `shown` moves only when a write succeeded, and is read back
 * after a failed one, so text is neither lost nor repeated. Past the outage policy's length or
 * buffer the attempt fails, as any other failed write fails it at once.
 */
export class StepTextStream {
  private produced = '';
  private shown: string;
  /** How much of `produced` the last successful write covered. */
  private writtenUpTo = 0;
  /** A write failed for an outage: it may have landed, so `shown` is read back before the next. */
  private unsure = false;
  private timer: NodeJS.Timeout | undefined;
  /** When the last batch was cut (performance.now()). */
  private lastFlush = Number.NEGATIVE_INFINITY;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private readonly stopped = new AbortController();

  constructor(
    alreadyShown: string,
    private readonly sink: StepTextSink,
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
    // Only an outage lets unwritten text pile up; bounded, so a long one cannot exhaust the heap.
    const held = this.produced.length - this.writtenUpTo;
    if (this.unsure && held > this.sink.outage.maxBufferedChars) {
      return this.fail(new Error(`held ${held} characters of text while PostgreSQL was away (at most ${this.sink.outage.maxBufferedChars}); the model step gives up`));
    }
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

  /** Stops sending (the attempt failed); nothing queued after this is written, and no outage is waited out. */
  abandon(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopped.abort();
  }

  /**
   * Every link of the chain handles its own failure: a rejected append must never sit in the
   * chain as an unhandled rejection — it would take the process down. An outage is waited out
   * within the policy; what remains becomes `failure`, which `end()` throws, so the attempt fails
   * and Temporal retries it.
   */
  private enqueue(final: boolean): void {
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      try {
        const signal = AbortSignal.any([this.stopped.signal, this.sink.signal]);
        await writeThroughOutage(() => this.send(final), { maxMs: this.sink.outage.maxMs, signal, onOutage: () => this.noteOutage() });
      } catch (err) {
        this.fail(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  private noteOutage(): void {
    this.unsure = true;
    // The attempt is alive while it waits: its heartbeat goes on (Temporal is not the one away).
    this.onFlush();
  }

  /** One try: what is pending now, as one event; `shown` moves only once it is written. */
  private async send(final: boolean): Promise<void> {
    if (this.unsure) {
      this.shown = await this.sink.readShown();
      this.unsure = false;
    }
    const next = this.next(final);
    if (!next) {
      // Nothing to send: what was produced is shown already, or repeats what is.
      this.writtenUpTo = this.produced.length;
      return;
    }
    this.onFlush();
    if (!(await this.sink.append([next.event]))) throw new Error('superseded: another attempt owns this turn, or it has ended');
    this.shown = next.shown;
    this.writtenUpTo = next.upTo;
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.abandon();
    this.onFailure(err);
  }

  private next(final: boolean): Written | undefined {
    const { produced, shown } = this;
    const upTo = produced.length;
    if (produced === shown) return undefined;
    if (produced.startsWith(shown)) return { event: { type: 'text', text: produced.slice(shown.length) }, shown: produced, upTo };
    // The consumer shows more than this attempt has produced so far: wait, unless it is over.
    if (shown.startsWith(produced) && !final) return undefined;
    return { event: { type: 'text', text: produced, reset: true }, shown: produced, upTo };
  }
}
