/** One caller waiting for its share of a batch: position i of the batch gets outcome i. */
interface Waiter<T> {
  count: (n: number) => Promise<readonly T[]>;
  resolve: (outcome: T) => void;
  reject: (err: unknown) => void;
}

/**
 * Rate-limit counts of one key, at most `perKey` in flight at once per process, and the callers
 * that arrive meanwhile counted together (README: Limits).
 *
 * At the start of a flood hundreds of requests of one key arrive at once. Counted one by one,
 * each takes a pooled connection and a statement per limit, and other keys' requests queue behind
 * them in the pool (bench:limits). Here the first `perKey` go at once, alone; whoever arrives while
 * they are in flight waits in memory, and when a count comes back every waiter of that key, up to
 * `maxBatch`, is counted by one call of `count(n)`, which answers one outcome per caller in
 * arrival order (the first ones fit in the window, the rest do not). Callers of one key must pass
 * equivalent `count` functions: a batch runs its first caller's.
 */
export class CountBatcher<T> {
  private readonly keys = new Map<string, { running: number; waiting: Array<Waiter<T>> }>();

  constructor(
    private readonly perKey: number,
    private readonly maxBatch: number,
  ) {}

  run(key: string, count: (n: number) => Promise<readonly T[]>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let entry = this.keys.get(key);
      if (!entry) this.keys.set(key, (entry = { running: 0, waiting: [] }));
      entry.waiting.push({ count, resolve, reject });
      this.pump(key, entry);
    });
  }

  /** Keys with counts in flight or waiting (for tests: an idle batcher holds nothing). */
  get size(): number {
    return this.keys.size;
  }

  private pump(key: string, entry: { running: number; waiting: Array<Waiter<T>> }): void {
    while (entry.running < this.perKey && entry.waiting.length > 0) {
      const batch = entry.waiting.splice(0, this.maxBatch);
      entry.running += 1;
      const settle = (outcomes: readonly T[]) => {
        for (const [i, waiter] of batch.entries()) {
          const outcome = outcomes[i];
          if (outcome === undefined) waiter.reject(new Error(`a count of ${batch.length} answered ${outcomes.length} outcomes`));
          else waiter.resolve(outcome);
        }
      };
      const fail = (err: unknown) => batch.forEach((waiter) => waiter.reject(err));
      // `count` may throw synchronously as well as reject: both reach every waiter of the batch.
      Promise.resolve()
        .then(() => batch[0]!.count(batch.length))
        .then(settle, fail)
        .finally(() => {
          entry.running -= 1;
          this.pump(key, entry);
          if (entry.running === 0 && entry.waiting.length === 0 && this.keys.get(key) === entry) this.keys.delete(key);
        })
        .catch(fail);
    }
  }
}
