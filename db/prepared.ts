import type { Db } from './connect';

/**
 * Named prepared statements for the turn path's hottest statements (docs/operations.md, "What a
 * turn asks of PostgreSQL"). knex sends every statement unnamed, so PostgreSQL parses and plans it
 * on each call; for the turn path's CTEs that planning cost more than running them (a model step's
 * claim and credit check took 2–2.5 ms each to plan under bench:turns' load). A named statement is
 * parsed once per connection and, after a few runs, planned once (`plan_cache_mode` auto).
 */
export interface PreparedStatement {
  name: string;
  /** The SQL with PostgreSQL's `$n` placeholders. */
  text: string;
}

/**
 * A statement written with knex's `?` placeholders, named. Every `?` must be a placeholder (these
 * statements use no `?` operators). The name must change when the text does: a connection keeps
 * the first text it prepared under a name.
 */
export function prepared(name: string, sql: string): PreparedStatement {
  let n = 0;
  return { name, text: sql.replace(/\?/g, () => `$${++n}`) };
}

interface PgConnection {
  query<R>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

/**
 * Runs `statement` on a connection of `db`'s pool, outside any transaction. It is announced as
 * knex's own queries are (`db.on('query')`), so whoever counts the process's queries still sees it.
 */
export async function runPrepared<R>(db: Db, statement: PreparedStatement, values: unknown[]): Promise<R[]> {
  const connection = (await db.client.acquireConnection()) as PgConnection;
  try {
    db.emit('query', { sql: statement.text, bindings: values, method: 'raw' });
    return (await connection.query<R>({ name: statement.name, text: statement.text, values })).rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
