/**
 * Starts the requests an API key's limits let through at the key's own pace, in this process.
 * The limits are fixed windows: a key flooding far above them gets its whole second's allowance
 * the instant its window opens, and keys flooding together get theirs at the same instant; that
 * lump of work is what other callers would wait behind. A key's first quarter-second's allowance
 * starts at once, each later one 1 / `perSecond` s after the one before (a virtual clock per key,
 * the generic cell rate algorithm used as a shaper): a key within its limits is not slowed.
 * A key whose schedule has emptied is forgotten (swept at most once a second).
 */
export function keyPacer(perSecond: number) {
  return pacer(1000 / perSecond, Math.max(1, Math.ceil(perSecond / 4)));
}

/** `burst` requests of a key at once, then one every `intervalMs` (`keyPacer`). */
export function pacer(intervalMs: number, burst: number, now: () => number = () => performance.now()) {
  /** Per key: when its schedule would be empty again (ms, on `now`'s clock). */
  const due = new Map<string, number>();
  let swept = Number.NEGATIVE_INFINITY;
  const sweep = (at: number) => {
    swept = at;
    for (const [key, until] of due) if (until <= at) due.delete(key);
  };
  return {
    /** How long (ms) the next request of `key` waits before it starts; the wait is booked. */
    delay(key: string): number {
      const at = now();
      if (at - swept >= 1000) sweep(at);
      const until = Math.max(due.get(key) ?? at, at);
      due.set(key, until + intervalMs);
      return Math.max(0, until - (burst - 1) * intervalMs - at);
    },
    /** Keys whose schedule is not empty (for tests: an idle pacer holds nothing). */
    size(): number {
      sweep(now());
      return due.size;
    },
  };
}
