import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { RateLimitRefusal } from '../../domain/errors';

/** What a name that failed once is remembered by, so a name asked again is not counted again. */
const SEEN_NAMES_MAX = 20_000;

/**
 * How long, and how many, credentials and names found valid are remembered (docs/limits.md): an
 * address's failures never refuse them meanwhile. A day outlives any idle spell of a client in
 * use; the bound keeps a process's memory small (an entry is one short string).
 */
const FOUND_TTL_MS = 24 * 60 * 60 * 1000;
const FOUND_MAX = 20_000;

/**
 * Failed credentials per client address, counted in this process's memory (docs/limits.md): an
 * unknown API key, publishable token, agent host, custom-domain name or SNI name. Past
 * `perAddress` failures in a window of `windowSeconds`, the address is refused before anything
 * is looked up — a flood of guesses then costs no query — until its window ends. Only failures
 * are counted: a client that presents what exists is never slowed by them.
 *
 * Many clients share one address (a NAT, a proxy): so that one of them guessing cannot lock the
 * others out, what a request presents (`presented`: `key:<digest>`, `token:<digest>`,
 * `host:<name>` — never a secret's text) and this process found valid in the last day is never
 * refused for its address, and is looked up as usual. A guess is never found valid, so a flood
 * stays refused from memory; what was found valid and then fails (revoked, rotated, removed) is
 * forgotten at its first failure.
 */
export class AuthFailures {
  readonly #failures: RateLimiterMemory;
  /** (address, name) pairs already counted this window: a name is a failure once per address. */
  readonly #seen: LRUCache<string, true>;
  /** What requests presented and this process found valid, least recently found first out. */
  readonly #found = new LRUCache<string, true>({ max: FOUND_MAX, ttl: FOUND_TTL_MS });

  constructor(private readonly limits: { perAddress: number; windowSeconds: number }) {
    this.#failures = new RateLimiterMemory({ keyPrefix: 'auth-failures', points: limits.perAddress, duration: limits.windowSeconds });
    this.#seen = new LRUCache({ max: SEEN_NAMES_MAX, ttl: limits.windowSeconds * 1000 });
  }

  /** Ms until `address` may try again; 0 when it may now. */
  async refusedFor(address: string): Promise<number> {
    const res = await this.#failures.get(addressKey(address));
    return res && res.consumedPoints >= this.limits.perAddress ? Math.max(1, res.msBeforeNext) : 0;
  }

  /**
   * Throws 429 `rate_limited` (limit `auth-failures`) when `address` has failed too often, unless
   * `presented` was found valid lately (`found`): that is looked up whatever its address did.
   */
  async check(address: string, presented?: string): Promise<void> {
    if (presented !== undefined && this.#found.has(presented)) return;
    const ms = await this.refusedFor(address);
    if (ms === 0) return;
    const seconds = Math.ceil(ms / 1000);
    throw new RateLimitRefusal('auth-failures', `too many failed credentials or unknown names from this address; try again in ${seconds} s`, seconds);
  }

  /** `presented` was looked up and is valid: for a day, no address's failures refuse it. */
  found(presented: string): void {
    this.#found.set(presented, true);
  }

  /**
   * Counts one failure of `address`, and forgets `presented` as found. With `oncePerWindow` (a host
   * or SNI name), it counts once per address and window: a client that keeps using one unknown
   * host name is not refused for it.
   */
  failed(address: string, presented?: string, opts: { oncePerWindow?: boolean } = {}): void {
    const key = addressKey(address);
    if (presented !== undefined) {
      this.#found.delete(presented);
      if (opts.oncePerWindow) {
        const pair = `${key} ${presented}`;
        if (this.#seen.has(pair)) return;
        this.#seen.set(pair, true);
      }
    }
    void this.#failures.penalty(key);
  }
}

/** How a host or SNI name is presented: lower case, without a trailing dot (as it is looked up). */
export const presentedHost = (name: string) => `host:${name.toLowerCase().replace(/\.$/, '')}`;

/** An IPv4 address as it is; an IPv6 one by its /64, the block one host usually holds. */
function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}
