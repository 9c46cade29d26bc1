import { randomUUID } from 'node:crypto';
import type { Db } from '../connect';

/** Tries per acquire: two acquirers that picked the same free slot make one of them try another. */
const ATTEMPTS = 3;

/**
 * Leases: things a holder (an API key) has open at once — event streams, uploads in flight —
 * counted in PostgreSQL so that every API replica shares the count. A holder has `limit` slots;
 * a lease takes a free one (none live in it) in one statement, and the primary key decides a race,
 * so no lock is held while waiting and the limit is never passed. A lease expires unless renewed,
 * so a replica that dies holding some frees them within one time-to-live.
 */
export class LeasesRepository {
  constructor(private readonly db: Db) {}

  /** A new lease of `kind` for `holder` when it holds fewer than `limit` live ones; undefined when full. */
  async acquire({ holder, kind, limit, ttlSeconds }: { holder: string; kind: string; limit: number; ttlSeconds: number }): Promise<string | undefined> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const id = randomUUID();
      const result = await this.db.raw<{ rows: Array<{ id: string }> }>(
        `insert into leases (holder, kind, slot, id, expires_at)
         select :holder, :kind, s, :id, now() + make_interval(secs => :ttl)
           from generate_series(0, :limit - 1) s
          where not exists (select 1 from leases l where l.holder = :holder and l.kind = :kind and l.slot = s and l.expires_at > now())
          order by random() limit 1
         on conflict (holder, kind, slot) do update set id = excluded.id, expires_at = excluded.expires_at
          where leases.expires_at <= now()
         returning id`,
        { holder, kind, id, ttl: ttlSeconds, limit },
      );
      if (result.rows[0]) return result.rows[0].id;
      const live = await this.db('leases').where({ holder, kind }).where('expires_at', '>', this.db.fn.now()).count<{ count: string }[]>({ count: '*' }).first();
      if (Number(live?.count ?? 0) >= limit) return undefined;
    }
    return undefined;
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
