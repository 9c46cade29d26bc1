import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { CustomDomainsRepository } from '../db/repositories/custom-domains';
import { tlsKeyContext } from '../domain/custom-domains';
import type { SecretBox } from '../domain/secret-box';

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

/**
 * Which custom domains this replica serves, read from PostgreSQL and kept `ttlMs`; misses are
 * kept `missTtlMs` (every API request on a host of its own asks, so they are kept too, briefly:
 * a new certificate is served within that). A renewal or a removal made elsewhere is seen within
 * `ttlMs` on every replica, with no restart; a removal through this replica at once (`forget`).
 */
export class DomainDirectory {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly deps: { repo: CustomDomainsRepository; box: SecretBox; ttlMs: number; missTtlMs: number },
  ) {}

  /** The served domain `host` names (any case, trailing dot allowed); undefined when none. */
  lookup(host: string): Promise<ServedDomain | undefined> {
    const name = host.toLowerCase().replace(/\.$/, '');
    // Addresses and single labels (localhost) are never custom domains: no query for them.
    if (isIP(name) !== 0 || !name.includes('.')) return Promise.resolve(undefined);
    const now = Date.now();
    const hit = this.#entries.get(name);
    if (hit && hit.expires > now) return hit.value;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    const value = this.load(name);
    const entry = { expires: now + this.deps.missTtlMs, value };
    this.#entries.set(name, entry);
    value.then(
      (served) => {
        if (served) entry.expires = now + this.deps.ttlMs;
      },
      // A failed read is not remembered: the next request asks again.
      () => this.#entries.delete(name),
    );
    return value;
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
