import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { RateLimitRefusal } from '../../domain/errors';

/** What a name that failed once is remembered by, so a name asked again is not counted again. */
const SEEN_NAMES_MAX = 20_000;

/**
 * Failed credentials per client address, counted in this process's memory (docs/limits.md): an
 * unknown API key, publishable token, agent host, custom-domain name or SNI name. Past
 * `perAddress` failures in a window of `windowSeconds`, the address is refused before anything
 * is looked up — a flood of guesses then costs no query — until its window ends. Only failures
 * are counted: a client that presents what exists is never slowed by them.
 */
export class AuthFailures {
  readonly #failures: RateLimiterMemory;
  /** (address, name) pairs already counted this window: a name is a failure once per address. */
  readonly #seen: LRUCache<string, true>;

  constructor(private readonly limits: { perAddress: number; windowSeconds: number }) {
    this.#failures = new RateLimiterMemory({ keyPrefix: 'auth-failures', points: limits.perAddress, duration: limits.windowSeconds });
    this.#seen = new LRUCache({ max: SEEN_NAMES_MAX, ttl: limits.windowSeconds * 1000 });
  }

  /** Ms until `address` may try again; 0 when it may now. */
  async refusedFor(address: string): Promise<number> {
    const res = await this.#failures.get(addressKey(address));
    return res && res.consumedPoints >= this.limits.perAddress ? Math.max(1, res.msBeforeNext) : 0;
  }

  /** Throws 429 `rate_limited` (limit `auth-failures`) when `address` has failed too often. */
  async check(address: string): Promise<void> {
    const ms = await this.refusedFor(address);
    if (ms === 0) return;
    const seconds = Math.ceil(ms / 1000);
    throw new RateLimitRefusal('auth-failures', `too many failed credentials or unknown names from this address; try again in ${seconds} s`, seconds);
  }

  /**
   * Counts one failure of `address`. With `name` (a host or SNI name), a name counts once per
   * address and window: a client that keeps using one unknown host name is not refused for it.
   */
  failed(address: string, name?: string): void {
    const key = addressKey(address);
    if (name !== undefined) {
      const pair = `${key} ${name}`;
      if (this.#seen.has(pair)) return;
      this.#seen.set(pair, true);
    }
    void this.#failures.penalty(key);
  }
}

/** An IPv4 address as it is; an IPv6 one by its /64, the block one host usually holds. */
function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}
