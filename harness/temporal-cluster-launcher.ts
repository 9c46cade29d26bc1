import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import pg from 'pg';
import { ensureSearchAttributes } from '../infra/search-attributes';
import { run } from '../infra/temporal-cli';
import { namespaceAnswers, withCallDeadline } from '../infra/temporal-connection';
import type { TemporalServerBinaries } from './temporal-server-binaries';

/**
 * A Temporal cluster in the shape operators run one (docs/temporal-cluster.md), for the cluster
 * test pass and `BENCH_TEMPORAL=cluster`: the four services — frontend, history, matching, worker —
 * each its own `temporal-server start --service …` process, sharing PostgreSQL for persistence and
 * visibility, configured by `deploy/temporal/config/cluster.yaml` (rendered per process from its
 * environment). It does what the operator's guide does by hand, in the same order: databases and
 * schemas with `temporal-sql-tool`, history first, the other three, then the namespace and our
 * search attributes. Each step is idempotent.
 */
export const clusterServices = ['history', 'matching', 'frontend', 'worker'] as const;
type ClusterService = (typeof clusterServices)[number];

interface ClusterPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  /** Ringpop membership ports, one per service: below 32768 (PostgreSQL keeps them as smallint). */
  membership: Record<ClusterService, number>;
}

export interface ClusterOptions {
  binaries: TemporalServerBinaries;
  /** A PostgreSQL server URL; its user must be able to create databases. Its database name is ignored. */
  databaseUrl: string;
  /** Names the two databases: `<prefix>` (persistence) and `<prefix>_visibility`. */
  databasePrefix: string;
  ports: ClusterPorts;
  namespace: string;
  log: (line: string) => void;
  /** Persistence connections per service process (TEMPORAL_DB_MAX_CONNS; default 10, the config's). */
  poolSize?: number;
  readyTimeoutMs?: number;
}

export interface ClusterHandle {
  address: string;
  namespace: string;
  /** The live process of each service (replaced when a service is started again). */
  process(service: ClusterService): ChildProcess;
  /** Sends a signal (SIGKILL by default) and waits until the service's process is gone. */
  killService(service: ClusterService, signal?: NodeJS.Signals): Promise<void>;
  /** Starts stopped services again on the same ports; waits until each serving gRPC listens and the cluster answers. */
  startServices(...services: ClusterService[]): Promise<void>;
  /** The last lines each service printed, for a failing test's message. */
  output(service: ClusterService): string;
  stop(): Promise<void>;
}

/** deploy/temporal, the configuration operators use too. */
const configRoot = path.join(__dirname, '..', 'deploy', 'temporal');

export async function startTemporalCluster(opts: ClusterOptions): Promise<ClusterHandle> {
  const db = parseDatabaseUrl(opts.databaseUrl);
  const names = { main: opts.databasePrefix, visibility: `${opts.databasePrefix}_visibility` };
  await ensureDatabases(opts.databaseUrl, [names.main, names.visibility]);
  await ensureSchema(opts.binaries.sqlTool, db, names.main, 'postgresql/v12/temporal', opts.log);
  await ensureSchema(opts.binaries.sqlTool, db, names.visibility, 'postgresql/v12/visibility', opts.log);

  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    TEMPORAL_DB_HOST: db.host,
    TEMPORAL_DB_PORT: String(db.port),
    TEMPORAL_DB_USER: db.user,
    TEMPORAL_DB_PASSWORD: db.password,
    TEMPORAL_DB_NAME: names.main,
    TEMPORAL_VISIBILITY_DB_NAME: names.visibility,
    TEMPORAL_FRONTEND_PORT: String(opts.ports.frontend),
    TEMPORAL_FRONTEND_HTTP_PORT: String(opts.ports.frontendHttp),
    TEMPORAL_HISTORY_PORT: String(opts.ports.history),
    TEMPORAL_MATCHING_PORT: String(opts.ports.matching),
    TEMPORAL_WORKER_PORT: String(opts.ports.worker),
    TEMPORAL_FRONTEND_MEMBERSHIP_PORT: String(opts.ports.membership.frontend),
    TEMPORAL_HISTORY_MEMBERSHIP_PORT: String(opts.ports.membership.history),
    TEMPORAL_MATCHING_MEMBERSHIP_PORT: String(opts.ports.membership.matching),
    TEMPORAL_WORKER_MEMBERSHIP_PORT: String(opts.ports.membership.worker),
    TEMPORAL_DYNAMIC_CONFIG: path.join(configRoot, 'dynamicconfig.yaml'),
    ...(opts.poolSize ? { TEMPORAL_DB_MAX_CONNS: String(opts.poolSize) } : {}),
    // One listener each would be needed: four processes on one inherited address would collide.
    TEMPORAL_METRICS_ADDRESS: '',
  });

  const procs = new Map<ClusterService, ChildProcess>();
  const outputs = new Map<ClusterService, string>();
  const launch = (service: ClusterService) => {
    const child = spawn(opts.binaries.server, ['--root', configRoot, '--config', 'config', '--env', 'cluster', 'start', '--service', service], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a Ctrl-C to ours reaches us, and we stop the services after our workers.
      detached: true,
    });
    outputs.set(service, '');
    const keep = (chunk: Buffer) => outputs.set(service, ((outputs.get(service) ?? '') + chunk.toString('utf8')).slice(-8000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    procs.set(service, child);
  };
  const address = `127.0.0.1:${opts.ports.frontend}`;
  const deadlineMs = opts.readyTimeoutMs ?? 90_000;
  const allOutput = () => clusterServices.map((s) => `--- ${s}:\n${outputs.get(s) ?? ''}`).join('\n');

  // The first service to start writes the cluster's metadata to a new database; several racing to
  // do it fail ("failed to initialize current cluster metadata"), so history goes first, alone.
  launch('history');
  await waitUntil(() => listening(opts.ports.history), deadlineMs, () => `history did not start:\n${outputs.get('history') ?? ''}`, procs.get('history')).catch(async (e: unknown) => {
    await stopChild(procs.get('history'), 'SIGKILL');
    throw e;
  });
  for (const s of clusterServices) if (s !== 'history') launch(s);
  const handle: ClusterHandle = {
    address,
    namespace: opts.namespace,
    process: (s) => procs.get(s) as ChildProcess,
    killService: (s, signal = 'SIGKILL') => stopChild(procs.get(s), signal),
    startServices: async (...services) => {
      for (const s of services) launch(s);
      // The worker service serves no gRPC of its own: it is up once the others answer.
      const grpcPort: Partial<Record<ClusterService, number>> = { frontend: opts.ports.frontend, history: opts.ports.history, matching: opts.ports.matching };
      for (const s of services) {
        const port = grpcPort[s];
        if (port !== undefined) await waitUntil(() => listening(port), deadlineMs, () => `${s} did not come back:\n${outputs.get(s) ?? ''}`, procs.get(s));
      }
      await waitUntil(() => namespaceAnswers(address, opts.namespace), deadlineMs, () => `${services.join(', ')} did not come back:\n${allOutput()}`);
    },
    output: (s) => outputs.get(s) ?? '',
    stop: async () => {
      // Frontend first, so no new calls arrive while history and matching drain.
      for (const s of ['frontend', 'worker', 'matching', 'history'] as const) await stopChild(procs.get(s), 'SIGTERM');
    },
  };
  try {
    await waitUntil(() => namespaceAnswers(address, 'temporal-system'), deadlineMs, () => `the cluster did not answer on ${address} in time:\n${allOutput()}`);
    await ensureNamespace(address, opts.namespace);
    // The services see a new namespace when their registry refreshes (1 s, deploy/temporal/dynamicconfig.yaml):
    // registering the attributes succeeds from then on.
    let added: string[] = [];
    await waitUntil(async () => {
      const connection = await Connection.connect({ address });
      try {
        added = await ensureSearchAttributes(connection, opts.namespace);
        return true;
      } catch {
        return false;
      } finally {
        await connection.close();
      }
    }, deadlineMs, () => `namespace ${opts.namespace} did not become usable:\n${allOutput()}`);
    if (added.length > 0) opts.log(`registered search attributes ${added.join(', ')} on ${opts.namespace}`);
  } catch (e) {
    await handle.stop();
    throw e;
  }
  return handle;
}

interface DatabaseTarget {
  host: string;
  port: number;
  user: string;
  password: string;
}

function parseDatabaseUrl(url: string): DatabaseTarget {
  const u = new URL(url);
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port) || 5432,
    user: decodeURIComponent(u.username) || 'postgres',
    password: decodeURIComponent(u.password),
  };
}

/** Creates each database that is missing, connected to the server's `postgres` database. */
async function ensureDatabases(serverUrl: string, names: string[]): Promise<void> {
  const u = new URL(serverUrl);
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    for (const name of names) {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      // Identifiers cannot be bound as parameters; the names are ours (prefix validated by the caller).
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    }
  } finally {
    await client.end();
  }
}

/** `setup-schema -v 0.0` skips a database already past 0.0; `update-schema` applies what is newer than its version. */
async function ensureSchema(sqlTool: string, db: DatabaseTarget, database: string, schema: string, log: (line: string) => void): Promise<void> {
  const common = ['--plugin', 'postgres12', '--ep', db.host, '-p', String(db.port), '-u', db.user, '--db', database];
  const env = { ...process.env, SQL_PASSWORD: db.password };
  await run(sqlTool, [...common, 'setup-schema', '-v', '0.0'], () => undefined, env);
  const steps: string[] = [];
  await run(sqlTool, [...common, 'update-schema', '-s', schema], (line) => {
    const m = /Schema updated from (\S+) to (\S+)/.exec(line);
    if (m?.[1] && m[2]) steps.push(m[1], m[2]);
  }, env);
  if (steps.length > 0) log(`${database}: schema ${steps[0]} → ${steps[steps.length - 1]}`);
}

async function ensureNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const c = connection;
    const known = await withCallDeadline(c, Date.now() + 5000, () => c.workflowService.describeNamespace({ namespace })).then(() => true, () => false);
    if (known) return;
    await c.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') }).catch((e: unknown) => {
      // Two starters racing: the other one registered it.
      if (!/already exists|AlreadyExists/i.test(String(e))) throw e;
    });
  } finally {
    await connection.close();
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, failure: () => string, watch?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (watch && (watch.exitCode !== null || watch.signalCode !== null)) throw new Error(failure());
    if (Date.now() > deadline) throw new Error(failure());
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A signal, then SIGKILL after 15 s; resolves when the process is gone. */
function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals, graceMs = 15_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
