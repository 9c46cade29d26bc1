import knex, { type Knex } from 'knex';
import pg from 'pg';
// pino's type, not infra/logger's: db/ imports nothing of infra/ (infra's adapters import db/).
import type { Logger } from 'pino';

// NUMERIC (credits) and BIGINT (counters) arrive as strings by default; our values fit a double.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;

interface DbOptions {
  url: string;
  poolMax?: number;
  /** Connections the pool keeps once opened, never closing them for being idle (`warmPool` opens them). */
  poolMin?: number;
  /** Where knex's own warnings go; without one, knex writes them to the console. */
  logger?: Logger;
}

/** knex's log hooks on the service's logger: its lines are then in the process's format and level. */
function knexLog(logger: Logger): Knex.Config['log'] {
  const text = (m: unknown) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m));
  const log = logger.child({ source: 'knex' });
  return {
    warn: (m: unknown) => log.warn(text(m)),
    error: (m: unknown) => log.error(text(m)),
    deprecate: (method: string, alternative: string) => log.warn(`${method} is deprecated, use ${alternative}`),
    debug: (m: unknown) => log.debug(text(m)),
  };
}

/** A knex instance on PostgreSQL. The caller owns it and must `destroy()` it. */
export function createDb({ url, poolMax = 20, poolMin = 0, logger }: DbOptions): Db {
  return knex({
    ...(logger ? { log: knexLog(logger) } : {}),
    client: 'pg',
    // TCP keepalives after a minute idle: a pool that keeps its connections (poolMin) keeps them
    // through NAT and load-balancer idle timeouts, and one whose peer is gone is found and replaced.
    connection: { connectionString: url, keepAlive: true, keepAliveInitialDelayMillis: 60_000 },
    pool: { min: poolMin, max: poolMax },
    acquireConnectionTimeout: 10_000,
  });
}

/**
 * The pool of an API or worker process: DATABASE_POOL_MIN connections are opened before the process
 * says it is ready (`warmPool`, beside its other start-up connections) and kept, so a burst of work
 * does not open them while it waits.
 */
export function processPool(pool: { DATABASE_POOL_MAX: number; DATABASE_POOL_MIN: number }, url: string, logger: Logger): Db {
  return createDb({ url, poolMax: pool.DATABASE_POOL_MAX, poolMin: pool.DATABASE_POOL_MIN, logger });
}

/**
 * Opens `connections` pooled connections now, each in a transaction that waits for the others so
 * that no two share one, and gives them back to the pool (docs/operations.md, DATABASE_POOL_MIN).
 * A pool that opens its connections on demand opens them during a burst, and the burst's first
 * requests wait for new backends and SCRAM exchanges (tens of ms instead of a few). Best effort and bounded by `timeoutMs`: answers how many were
 * open at once, and a database that is away only means fewer (the pool opens the rest on demand).
 */
export async function warmPool(db: Db, connections: number, timeoutMs = 5000): Promise<number> {
  if (connections <= 0) return 0;
  let open = 0;
  let openAtRelease: number | undefined;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = () => {
      openAtRelease ??= open;
      resolve();
    };
  });
  const timer = setTimeout(() => release(), timeoutMs);
  let settled = 0;
  for (let i = 0; i < connections; i++) {
    // Failures are the pool's to report on demand; a connection that comes late just commits at once.
    db.transaction(async () => {
      open += 1;
      if (open === connections) release();
      await released;
    })
      .catch(() => undefined)
      .finally(() => {
        settled += 1;
        if (settled === connections) release(); // every one failed or ended: nothing left to wait for
      });
  }
  await released;
  clearTimeout(timer);
  return openAtRelease ?? open;
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
