import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { CustomDomainsRepository } from '../../db/repositories/custom-domains';
import { tlsKeyContext } from '../../domain/custom-domains';
import type { SecretBox } from '../../domain/secret-box';

/** A served custom domain as a request or a TLS handshake needs it. */
export interface ServedDomain {
  agentId: string;
  context: SecureContext;
}

interface Entry {
  expires: number;
  value: Promise<ServedDomain | undefined>;
}

const MAX_ENTRIES = 10_000;

/** What a lookup on behalf of a client does around the query it may cost (limits/auth-failures.ts). */
export interface LookupGuard {
  /** Before the name is read from PostgreSQL: throws to refuse the client without a query. */
  beforeQuery(): Promise<void>;
  /** The name was read from PostgreSQL for this lookup and is not served. */
  missed(): void;
}

/**
 * Which custom domains this replica serves, read from PostgreSQL and kept `ttlMs`; misses are
 * kept `missTtlMs` (every API request on a host of its own asks, so they are kept too, briefly:
 * a new certificate is served within that). A renewal or a removal made elsewhere is seen within
 * `ttlMs` on every replica, with no restart; a removal through this replica at once (`forget`).
 */
export class DomainDirectory {
  readonly #entries: LRUCache<string, Entry>;

  constructor(
    private readonly deps: { repo: CustomDomainsRepository; box: SecretBox; ttlMs: number; missTtlMs: number; maxEntries?: number },
  ) {
    this.#entries = new LRUCache<string, Entry>({ max: deps.maxEntries ?? MAX_ENTRIES });
  }

  /**
   * The served domain `host` names (any case, trailing dot allowed); undefined when none. `guard`
   * is told before a query and of a miss it read (a name in the cache costs and counts nothing).
   */
  async lookup(host: string, guard?: LookupGuard): Promise<ServedDomain | undefined> {
    const name = host.toLowerCase().replace(/\.$/, '');
    // Addresses and single labels (localhost) are never custom domains: no query for them.
    if (isIP(name) !== 0 || !name.includes('.')) return undefined;
    const cached = this.cached(name);
    if (cached) return cached;
    if (guard) {
      await guard.beforeQuery();
      // Another lookup of the name may have started meanwhile.
      const started = this.cached(name);
      if (started) return started;
    }
    const now = Date.now();
    const value = this.load(name);
    const entry = { expires: now + this.deps.missTtlMs, value };
    this.#entries.set(name, entry);
    value.then(
      (served) => {
        if (served) entry.expires = now + this.deps.ttlMs;
        else guard?.missed();
      },
      // A failed read is not remembered: the next request asks again.
      () => {
        if (this.#entries.peek(name) === entry) this.#entries.delete(name);
      },
    );
    return value;
  }

  private cached(name: string): Promise<ServedDomain | undefined> | undefined {
    const hit = this.#entries.get(name);
    return hit && hit.expires > Date.now() ? hit.value : undefined;
  }

  forget(domain: string): void {
    this.#entries.delete(domain);
  }

  private async load(domain: string): Promise<ServedDomain | undefined> {
    const stored = await this.deps.repo.servedCertificate({ domain });
    if (!stored) return undefined;
    const key = this.deps.box.open(stored.keySealed, tlsKeyContext(stored.id, stored.domain));
    return { agentId: stored.agentId, context: createSecureContext({ cert: stored.certPem, key }) };
  }
}
