import path from 'node:path';
import { ChildProc } from './child';
import { repoRoot } from './cli';

/** A PGlite server of `startPgliteServer`: a PostgreSQL URL and a way to stop it. */
export interface PgliteServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` for `pg`/knex. */
  url: string;
  /** Kills the server process (SIGTERM, then SIGKILL); safe to call twice. */
  close(): Promise<void>;
}

const entry = path.join(repoRoot, 'harness', 'pglite-server-main.ts');

/**
 * An in-memory PostgreSQL with pgvector for tests: PGlite (PostgreSQL compiled to WebAssembly)
 * with its `vector` extension, served over the wire protocol by `@electric-sql/pglite-socket` in a
 * child process of its own, so its WebAssembly work does not block the test's event loop.
 * It is one backend: queries of all connections run one at a time, and a transaction holds off
 * the other connections until it ends (so code that, inside a transaction, awaits a query on
 * another connection hangs here where PostgreSQL answers). `maxConnections` (default 4) is how many sockets it
 * accepts; a further one is refused ("Too many connections"), so keep a pool's max at or below it.
 * `create extension vector` is left to the caller.
 */
export async function startPgliteServer(options: { maxConnections?: number } = {}): Promise<PgliteServer> {
  const maxConnections = options.maxConnections ?? 4;
  const proc = new ChildProc('pglite server', process.execPath, ['--require', 'tsx/cjs', entry, String(maxConnections)], {
    cwd: repoRoot,
    env: process.env,
  });
  try {
    await proc.waitFor(/pglite listening on 127\.0\.0\.1:\d+/, 60_000);
  } catch (err) {
    await proc.stop(2000);
    throw err;
  }
  const port = /pglite listening on 127\.0\.0\.1:(\d+)/.exec(proc.output)?.[1];
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    close: () => proc.stop(5000),
  };
}
