import type { LeasesRepository } from '../../db/repositories/leases';

/** How long a lease lives unless renewed; a replica that dies frees its leases within this. */
const LEASE_TTL_SECONDS = 60;
const RENEW_EVERY_MS = 20_000;

/**
 * Holds this process's leases (db/repositories/leases.ts) and renews them, all in one statement,
 * while any is held: the timer runs only then, so an idle API does no work for them.
 */
export class LeaseKeeper {
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /**
   * Per holder and kind, the last take in this process: takes of one holder run one at a time, so
   * opens racing for its last free slots wait here instead of on each other's rows in PostgreSQL
   * (where they could be refused below the limit).
   */
  private readonly takes = new Map<string, Promise<unknown>>();

  constructor(
    private readonly leases: LeasesRepository,
    /** Told of failed renewals and releases (the lease then expires by itself); for logging. */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A lease of `kind` for `holder` if it holds fewer than `limit`, with the function that gives it back; undefined when full. */
  async take(holder: string, kind: string, limit: number): Promise<(() => void) | undefined> {
    const id = await this.oneAtATime(`${holder}:${kind}`, () => this.leases.acquire({ holder, kind, limit, ttlSeconds: LEASE_TTL_SECONDS }));
    if (id === undefined) return undefined;
    this.held.add(id);
    this.timer ??= setInterval(() => this.renew(), RENEW_EVERY_MS);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held.delete(id);
      if (this.held.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
      this.leases.release({ id }).catch(this.onError);
    };
  }

  private oneAtATime<T>(key: string, operation: () => Promise<T>): Promise<T> {
    const turn = (this.takes.get(key) ?? Promise.resolve()).then(operation);
    const settled = turn.catch(() => undefined);
    this.takes.set(key, settled);
    void settled.then(() => this.takes.get(key) === settled && this.takes.delete(key));
    return turn;
  }

  private renew(): void {
    this.leases.renew({ ids: [...this.held], ttlSeconds: LEASE_TTL_SECONDS }).catch(this.onError);
  }
}
