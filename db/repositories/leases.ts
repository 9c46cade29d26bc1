import { randomUUID } from 'node:crypto';
import type { Db } from '../connect';

/**
 * Leases: things a holder (an API key) has open at once — event streams, uploads in flight —
 * counted in PostgreSQL so that every API replica shares the count. A lease expires unless renewed,
 * so a replica that dies holding some frees them within one time-to-live.
 */
export class LeasesRepository {
  constructor(private readonly db: Db) {}

  /** A new lease of `kind` for `holder` when it holds fewer than `limit` live ones; undefined when full. */
  async acquire({ holder, kind, limit, ttlSeconds }: { holder: string; kind: string; limit: number; ttlSeconds: number }): Promise<string | undefined> {
    return this.db.transaction(async (t) => {
      // One acquire at a time per (holder, kind): two replicas racing cannot both take the last one.
      await t.raw('select pg_advisory_xact_lock(hashtext(?))', [`lease:${kind}:${holder}`]);
      await t('leases').where({ holder, kind }).where('expires_at', '<=', t.fn.now()).delete();
      const row = await t('leases').where({ holder, kind }).count<{ count: string }[]>({ count: '*' }).first();
      if (Number(row?.count ?? 0) >= limit) return undefined;
      const id = randomUUID();
      await t('leases').insert({ id, holder, kind, expires_at: t.raw('now() + make_interval(secs => ?)', [ttlSeconds]) });
      return id;
    });
  }

  /** Pushes the expiry of live leases `ttlSeconds` from now. */
  async renew({ ids, ttlSeconds }: { ids: string[]; ttlSeconds: number }): Promise<void> {
    if (ids.length === 0) return;
    await this.db('leases').whereIn('id', ids).update({ expires_at: this.db.raw('now() + make_interval(secs => ?)', [ttlSeconds]) });
  }

  async release({ id }: { id: string }): Promise<void> {
    await this.db('leases').where({ id }).delete();
  }
}
