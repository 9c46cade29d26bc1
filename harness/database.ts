import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../infra/embedded-postgres';
import { freePort } from '../infra/temporal-dev-server';

/** A database of a test run or a bench run's own. */
export interface FreshDatabase {
  url: string;
  /** Where it lives, for a log line. */
  kind: string;
  /** On DATABASE_URL's server: the new database's name. */
  shared: string | undefined;
  /** Drops the database, or stops the embedded cluster (and removes the directory made for it). */
  drop(): Promise<void>;
}

/**
 * A new database `<prefix>_<random>` on DATABASE_URL's server when it is set, else an embedded
 * PostgreSQL cluster in `dataDir` (default: a temporary directory of its own).
 */
export async function freshDatabase(opts: { prefix: string; dataDir?: string; log: (line: string) => void }): Promise<FreshDatabase> {
  const admin = process.env.DATABASE_URL;
  if (admin) {
    const name = `${opts.prefix}_${randomBytes(5).toString('hex')}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`create database ${name}`);
    } finally {
      await client.end();
    }
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      kind: `DATABASE_URL server (${url.host}), fresh database ${name}`,
      shared: name,
      async drop() {
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        try {
          await c.query(`drop database if exists ${name} with (force)`);
        } finally {
          await c.end();
        }
      },
    };
  }
  const ownDir = opts.dataDir === undefined;
  const dir = opts.dataDir ?? (await mkdtemp(path.join(tmpdir(), `${opts.prefix}-pg-`)));
  const handle = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), log: opts.log });
  return {
    url: handle.url,
    kind: 'embedded PostgreSQL (temporary directory)',
    shared: undefined,
    async drop() {
      await handle.stop();
      if (ownDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
