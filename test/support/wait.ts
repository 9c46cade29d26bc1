import assert from 'node:assert/strict';

/** Reads until `done` holds, every 250 ms for at most `ms`; fails naming `what` and the last value. */
export async function waitFor<T>(what: string, read: () => Promise<T> | T, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
