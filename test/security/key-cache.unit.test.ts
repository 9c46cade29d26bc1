import assert from 'node:assert/strict';
import { ApiKeyCache } from '../../api/key-cache';
import type { ChannelHandler } from '../../api/server/pg-listener';
import { API_KEY_REVOCATIONS_CHANNEL } from '../../db/repositories/api-keys';

const key = (n: number) => `sk_${String(n).padStart(40, '0')}`;

/** Live keys by text, a count of lookups, and a lookup that can be held open. */
function fakeKeys() {
  const live = new Map<string, { workspaceId: string; keyId: string; role: 'owner' }>();
  let gate: Promise<void> | undefined;
  const keys = {
    lookups: 0,
    live,
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
    async resolve({ apiKey }: { apiKey: string }) {
      keys.lookups += 1;
      const found = live.get(apiKey);
      await gate;
      return found;
    },
  };
  for (let n = 1; n <= 5; n++) live.set(key(n), { workspaceId: 'ws_1', keyId: `key_${n}`, role: 'owner' });
  return keys;
}

/** The handler the cache registers, to play the LISTEN connection's part. */
function fakeListener() {
  const handlers = new Map<string, ChannelHandler>();
  return {
    on: (channel: string, handler: ChannelHandler) => void handlers.set(channel, handler),
    get revocations(): ChannelHandler {
      return handlers.get(API_KEY_REVOCATIONS_CHANNEL)!;
    },
  };
}

function setup(limits = { maxKeys: 100, ttlMs: 60_000 }) {
  const keys = fakeKeys();
  const listener = fakeListener();
  const cache = new ApiKeyCache(keys, listener, limits);
  listener.revocations.listening!();
  /** How many lookups resolving `apiKey` now costs. */
  const lookupsFor = async (apiKey: string) => {
    const before = keys.lookups;
    await cache.resolve({ apiKey });
    return keys.lookups - before;
  };
  return { keys, listener, cache, lookupsFor };
}

describe('API key cache', () => {
  it('a live key is looked up once; an unknown or revoked key every time', async () => {
    const { keys, lookupsFor } = setup();
    assert.equal(await lookupsFor(key(1)), 1);
    assert.equal(await lookupsFor(key(1)), 0);
    keys.live.delete(key(2));
    assert.equal(await lookupsFor(key(2)), 1);
    assert.equal(await lookupsFor(key(2)), 1, 'a miss is not cached: a key created a moment later works at once');
  });

  it('a revocation evicts the key it names, and only that key', async () => {
    const { listener, lookupsFor } = setup();
    await lookupsFor(key(1));
    await lookupsFor(key(2));
    listener.revocations.notify('key_1');
    assert.equal(await lookupsFor(key(1)), 1);
    assert.equal(await lookupsFor(key(2)), 0);
  });

  it('a lookup in flight when a revocation arrives is not cached', async () => {
    const { keys, listener, cache, lookupsFor } = setup();
    const release = keys.hold();
    const resolving = cache.resolve({ apiKey: key(1) });
    listener.revocations.notify('key_1'); // the revocation committed after the lookup's snapshot
    release();
    assert.ok(await resolving, 'the lookup read the key live');
    assert.equal(await lookupsFor(key(1)), 1, 'but it was not cached');
  });

  it('concurrent lookups of one key share one query, but not across a revocation', async () => {
    const { keys, listener, cache } = setup();
    const release = keys.hold();
    const first = Array.from({ length: 50 }, () => cache.resolve({ apiKey: key(3) }));
    assert.equal(keys.lookups, 1, 'fifty requests of one key at once: one query');
    listener.revocations.notify('key_3');
    const after = cache.resolve({ apiKey: key(3) });
    assert.equal(keys.lookups, 2, 'a request after the revocation does not share the earlier lookup');
    release();
    for (const found of await Promise.all(first)) assert.equal(found?.keyId, 'key_3');
    assert.equal((await after)?.keyId, 'key_3');
  });

  it('before LISTEN is in place and while it is lost, nothing is served from the cache', async () => {
    const keys = fakeKeys();
    const listener = fakeListener();
    const cache = new ApiKeyCache(keys, listener);
    await cache.resolve({ apiKey: key(1) });
    await cache.resolve({ apiKey: key(1) });
    assert.equal(keys.lookups, 2, 'not listening yet');
    listener.revocations.listening!();
    await cache.resolve({ apiKey: key(1) });
    await cache.resolve({ apiKey: key(1) });
    assert.equal(keys.lookups, 3);
    listener.revocations.lost!();
    assert.equal(cache.size, 0, 'emptied when the connection is lost');
    await cache.resolve({ apiKey: key(1) });
    await cache.resolve({ apiKey: key(1) });
    assert.equal(keys.lookups, 5, 'bypassed while lost');
    listener.revocations.listening!();
    await cache.resolve({ apiKey: key(1) });
    await cache.resolve({ apiKey: key(1) });
    assert.equal(keys.lookups, 6, 'served again once listening');
  });

  it('a lookup that began before the connection was lost is not cached after it comes back', async () => {
    const { keys, listener, cache, lookupsFor } = setup();
    const release = keys.hold();
    const resolving = cache.resolve({ apiKey: key(1) });
    listener.revocations.lost!();
    listener.revocations.listening!();
    release();
    await resolving;
    assert.equal(await lookupsFor(key(1)), 1);
  });

  it('holds at most maxKeys, dropping the least recently used', async () => {
    const { cache, lookupsFor } = setup({ maxKeys: 2, ttlMs: 60_000 });
    await lookupsFor(key(1));
    await lookupsFor(key(2));
    assert.equal(await lookupsFor(key(1)), 0); // key 1 is now the most recently used
    await lookupsFor(key(3)); // drops key 2
    assert.equal(cache.size, 2);
    assert.equal(await lookupsFor(key(1)), 0);
    assert.equal(await lookupsFor(key(2)), 1);
  });

  it('an entry expires after ttlMs', async () => {
    const { lookupsFor } = setup({ maxKeys: 100, ttlMs: 30 });
    await lookupsFor(key(1));
    assert.equal(await lookupsFor(key(1)), 0);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await lookupsFor(key(1)), 1);
  });
});
