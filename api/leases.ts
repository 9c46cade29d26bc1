import type { LeasesRepository } from '../db/repositories/leases';
import { CountGate } from './count-gate';

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
   * One take of a holder's kind at a time in this process: opens that race for the last free
   * slots would otherwise wait on each other's rows in PostgreSQL, each holding a pooled
   * connection (and could be refused below the limit); here they wait in memory instead.
   */
  private readonly takes = new CountGate(1);

  constructor(
    private readonly leases: LeasesRepository,
    /** Told of failed renewals and releases (the lease then expires by itself); for logging. */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A lease of `kind` for `holder` if it holds fewer than `limit`, with the function that gives it back; undefined when full. */
  async take(holder: string, kind: string, limit: number): Promise<(() => void) | undefined> {
    const id = await this.takes.run(`${holder}:${kind}`, () => this.leases.acquire({ holder, kind, limit, ttlSeconds: LEASE_TTL_SECONDS }));
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

  private renew(): void {
    this.leases.renew({ ids: [...this.held], ttlSeconds: LEASE_TTL_SECONDS }).catch(this.onError);
  }
}
