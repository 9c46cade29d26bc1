/**
 * At most `perKey` operations of one key run at once in this process; the rest wait their turn
 * here, in memory, in arrival order. The lease keeper (leases.ts) takes one lease of a key's kind
 * at a time with it, so that requests racing for a key's last places do not each hold a pooled
 * connection while they wait on one another's rows. (Rate-limit counts batch instead:
 * count-batcher.ts.)
 */
export class CountGate {
  private readonly keys = new Map<string, { running: number; waiting: Array<() => void> }>();

  constructor(private readonly perKey: number) {}

  async run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    let entry = this.keys.get(key);
    if (!entry) this.keys.set(key, (entry = { running: 0, waiting: [] }));
    const slot = entry;
    // A waiter is handed its slot by the operation that ends (`running` stays as it is).
    if (slot.running >= this.perKey) await new Promise<void>((resolve) => slot.waiting.push(resolve));
    else slot.running++;
    try {
      return await operation();
    } finally {
      const next = slot.waiting.shift();
      if (next) next();
      else if (--slot.running === 0) this.keys.delete(key);
    }
  }

  /** Keys with operations running or waiting (for tests: an idle gate holds nothing). */
  get size(): number {
    return this.keys.size;
  }
}
