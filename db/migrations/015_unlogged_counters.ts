import type { Knex } from 'knex';

/**
 * The limits' counters are not written to PostgreSQL's write-ahead log (docs/limits.md).
 * `rate_limits` (request counts per window) and `leases` (streams and uploads open per key) are
 * written on every request a limit counts; logged, each such commit waits for a WAL flush, and
 * other callers' counts queue behind a flood's. Both hold only what expires within seconds to
 * a minute, so they are UNLOGGED: a commit that writes only them does not wait for the disk.
 * What that costs: after a PostgreSQL crash (not a clean restart) or a failover to a standby they
 * are empty, so every key starts a fresh window and open leases are forgotten (their holders'
 * renewals then renew nothing; the places free up). No other table changes.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('alter table rate_limits set unlogged');
  await db.raw('alter table leases set unlogged');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('alter table leases set logged');
  await db.raw('alter table rate_limits set logged');
}
