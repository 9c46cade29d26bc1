/**
 * At most `perKey` operations of one key run at once in this process; the rest wait their turn
 * here, in memory, in arrival order. The rate limiters use it so that a flood of one key cannot
 * fill the database pool with counts of that key: at the start of a flood (hundreds of requests
 * at once, before the first refusal has put the key's block in memory) every request would
 * otherwise take a pooled connection to count, and other keys' requests would queue behind them.
 * Once a count comes back refused, the waiting requests of that key are refused from memory.
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
