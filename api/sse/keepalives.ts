/**
 * One timer for the keepalive comments of every open stream of this process, instead of one
 * `setInterval` each: 10,000 idle streams then cost one timer firing every `everyMs`, which
 * writes a few bytes to each socket. A stream's first keepalive comes within `everyMs` of its
 * opening (sooner than its own timer would have), which only keeps proxies surer it is alive.
 */
export class Keepalives {
  private readonly writers = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly everyMs: number) {}

  /** Calls `write` every `everyMs` until the returned function is called. */
  add(write: () => void): () => void {
    this.writers.add(write);
    // Runs only while a stream is open, and never keeps the process alive by itself.
    this.timer ??= setInterval(() => {
      for (const w of this.writers) w();
    }, this.everyMs).unref();
    return () => {
      this.writers.delete(write);
      if (this.writers.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }
}
