/**
 * Slots of the keepalive wheel: each tick writes one slot's streams, so 10,000 streams are
 * written ~600 at a time, and a notification never waits behind a write to every stream.
 */
const SLOTS = 16;

/**
 * One timer for the keepalive comments of every open stream of this process, instead of one
 * `setInterval` each: a small timer wheel. Streams are dealt round robin into SLOTS slots and the
 * timer writes one slot every `everyMs / SLOTS`, so each stream gets a keepalive every `everyMs`
 * (its first one within `everyMs` of opening) and each tick's work stays a fraction of the whole.
 */
export class Keepalives {
  private readonly slots = Array.from({ length: SLOTS }, () => new Set<() => void>());
  private dealt = 0;
  private ticks = 0;
  private size = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly everyMs: number) {}

  /** Calls `write` every `everyMs` until the returned function is called. */
  add(write: () => void): () => void {
    const slot = this.slots[this.dealt++ % SLOTS]!;
    slot.add(write);
    this.size++;
    // Runs only while a stream is open, and never keeps the process alive by itself.
    this.timer ??= setInterval(() => this.tick(), this.everyMs / SLOTS).unref();
    return () => {
      if (!slot.delete(write)) return;
      this.size--;
      if (this.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private tick(): void {
    for (const write of this.slots[this.ticks++ % SLOTS]!) write();
  }
}
