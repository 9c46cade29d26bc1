import knex, { type Knex } from 'knex';
import pg from 'pg';

// NUMERIC (credits) and BIGINT (counters) arrive as strings by default; our values fit a double.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;

interface DbOptions {
  url: string;
  poolMax?: number;
}

/** A knex instance on PostgreSQL. The caller owns it and must `destroy()` it. */
export function createDb({ url, poolMax = 20 }: DbOptions): Db {
  return knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
  });
}

/** True when the database answers a trivial query within `timeoutMs`. */
export async function pingDb(db: Db, timeoutMs = 2000): Promise<boolean> {
  try {
    await db.raw('select 1').timeout(timeoutMs, { cancel: true });
    return true;
  } catch {
    return false;
  }
}
