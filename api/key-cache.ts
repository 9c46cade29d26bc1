import { createHash } from 'node:crypto';
import { API_KEY_REVOCATIONS_CHANNEL, type ApiKeysRepository } from '../db/repositories/api-keys';
import type { PgListener } from './server/pg-listener';
import type { Role } from '../domain/roles';

/** What a live key resolves to. */
interface ResolvedKey {
  workspaceId: string;
  keyId: string;
  role: Role;
}

interface Entry {
  key: ResolvedKey;
  expiresAt: number;
}

/** Enough for every key a busy process sees; an entry is two short strings and a number. */
const MAX_KEYS = 10_000;

/**
 * A backstop only: revocations evict at once through NOTIFY. This bounds how long an entry could
 * outlive a notification lost without the connection failing (a half-open connection).
 */
const TTL_MS = 60_000;

/**
 * This API process's cache of live API keys (README: Security): a known key costs no lookup
 * query. Only live keys are cached, so a key created a moment ago by another process works at
 * once. A revocation notifies API_KEY_REVOCATIONS_CHANNEL and every process evicts the key when
 * the notification arrives. While the LISTEN connection is down, revocations would be missed: the
 * cache is emptied when it is lost and every request is looked up until it listens again.
 * Bounded: least recently used keys go first, and an entry lives at most TTL_MS.
 */
export class ApiKeyCache {
  /** Key digest → entry, least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  /** Key id → key digest: a revocation names the key by id. */
  private readonly digests = new Map<string, string>();
  /** Lookups in flight by key digest, with the generation they started in. */
  private readonly lookups = new Map<string, { generation: number; lookup: Promise<ResolvedKey | undefined> }>();
  private serving = false;
  /**
   * Moves on every revocation and every change of the connection: a lookup caches what it read
   * only when nothing moved while it ran, or a key revoked during its query would be cached live.
   */
  private generation = 0;

  constructor(
    private readonly keys: Pick<ApiKeysRepository, 'resolve'>,
    listener: Pick<PgListener, 'on'>,
    private readonly limits: { maxKeys: number; ttlMs: number } = { maxKeys: MAX_KEYS, ttlMs: TTL_MS },
  ) {
    listener.on(API_KEY_REVOCATIONS_CHANNEL, {
      notify: (keyId) => this.revoked(keyId),
      listening: () => {
        this.generation += 1;
        this.serving = true;
      },
      lost: () => {
        this.generation += 1;
        this.serving = false;
        this.entries.clear();
        this.digests.clear();
      },
    });
  }

  /**
   * As `ApiKeysRepository.resolve`, from the cache when the key is there. Concurrent lookups of
   * one key share one query (a flood's first wave would otherwise send one per request), unless a
   * revocation or a change of the connection came after the shared one started.
   */
  async resolve({ apiKey }: { apiKey: string }): Promise<ResolvedKey | undefined> {
    const digest = createHash('sha256').update(apiKey).digest('base64url');
    const cached = this.serving ? this.hit(digest) : undefined;
    if (cached) return cached;
    const pending = this.lookups.get(digest);
    if (pending && pending.generation === this.generation) return pending.lookup;
    const generation = this.generation;
    const serving = this.serving;
    const lookup = this.keys.resolve({ apiKey }).then((found) => {
      if (found && serving && generation === this.generation) this.add(digest, found);
      return found;
    });
    this.lookups.set(digest, { generation, lookup });
    const forget = () => {
      if (this.lookups.get(digest)?.lookup === lookup) this.lookups.delete(digest);
    };
    lookup.then(forget, forget);
    return lookup;
  }

  private hit(digest: string): ResolvedKey | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    this.entries.delete(digest);
    if (entry.expiresAt <= Date.now()) {
      this.digests.delete(entry.key.keyId);
      return undefined;
    }
    this.entries.set(digest, entry); // now the most recently used
    return entry.key;
  }

  private add(digest: string, key: ResolvedKey): void {
    this.entries.delete(digest);
    this.entries.set(digest, { key, expiresAt: Date.now() + this.limits.ttlMs });
    this.digests.set(key.keyId, digest);
    if (this.entries.size <= this.limits.maxKeys) return;
    const [oldest, entry] = this.entries.entries().next().value!;
    this.entries.delete(oldest);
    this.digests.delete(entry.key.keyId);
  }

  private revoked(keyId: string): void {
    this.generation += 1;
    const digest = this.digests.get(keyId);
    if (digest === undefined) return;
    this.digests.delete(keyId);
    this.entries.delete(digest);
  }

  /** Keys held now (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }
}
