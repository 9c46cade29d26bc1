import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '../db/connect';
import { migrateLatest } from '../db/migrate';
import { createRepositories, type Repositories } from '../db/repositories';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from '../infra/embedded-postgres';
import { freePort, startTemporalDevServer } from '../infra/temporal-dev-server';
import { startTestCluster } from './temporal-cluster';
import { clusterServices } from './temporal-cluster-launcher';
import { asCliProcess, type CliProcess, cliProcess } from './cli';
import { testEnvironment } from './test-env';

/** A process of ours (`hosted-agents api` or `worker`) with its output, so a test can kill and inspect it. */
export type Proc = CliProcess;

/**
 * A whole deployment on this machine that a fault test may break piece by piece: its own
 * PostgreSQL (embedded, restartable on the same data and port), its own Temporal dev server
 * (history in a file, so a restart keeps every run) or, under TEST_TEMPORAL=cluster, its own
 * cluster, and the API and worker as real processes.
 */
export interface FaultStack {
  env: Record<string, string>;
  apiURL: string;
  db: Db;
  repos: Repositories;
  api: Proc;
  worker: Proc;
  startApi(): Promise<Proc>;
  startWorker(): Promise<Proc>;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  stopTemporal(): Promise<void>;
  startTemporal(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The environment of an API and worker pair of ours on this machine: the database and Temporal
 * given, fresh keys, the offline model, warnings only; `extra` adds or replaces variables.
 */
export function processEnv(opts: { databaseUrl: string; temporalAddress: string; apiPort: number; extra?: Record<string, string> }): Record<string, string> {
  return testEnvironment({
    databaseUrl: opts.databaseUrl,
    temporalAddress: opts.temporalAddress,
    logLevel: 'warn',
    extra: { HOST: '127.0.0.1', PORT: String(opts.apiPort), ...opts.extra },
  });
}

/** Spawns `hosted-agents <command>` and resolves once it prints `ready` (bounded); `nodeArgs` go before the script (e.g. `--cpu-prof`). */
export async function spawnProcess(command: 'api' | 'worker', env: Record<string, string>, ready: string, nodeArgs: readonly string[] = []): Promise<Proc> {
  const proc = cliProcess(command, env, nodeArgs);
  await proc.waitFor(new RegExp(ready.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 60_000);
  return asCliProcess(proc);
}

export function kill(proc: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill(signal);
  });
}

export async function startFaultStack(opts: {
  temporalCliPath: string;
  extraEnv?: Record<string, string>;
  /** Node options of the API and worker processes (benchmarks: `--cpu-prof`). */
  nodeArgs?: readonly string[];
  /** Node options of the API process alone, after `nodeArgs` (bench:limits: V8's young generation, as production sets it). */
  apiNodeArgs?: readonly string[];
  log?: (line: string) => void;
}): Promise<FaultStack> {
  const log = opts.log ?? (() => undefined);
  const dir = await mkdtemp(path.join(tmpdir(), 'ha-faults-'));
  const [pgPort, temporalPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  let pg: EmbeddedPostgresHandle | undefined = await startEmbeddedPostgres({ dataDir: dir, port: pgPort, log });
  const dbFile = path.join(dir, 'temporal.sqlite');
  // The frontend keeps its port across a restart (clients reconnect to it); the UI takes a fresh
  // one each time: its old port, free for a moment, was once taken in between (bind: address in use).
  const startDevServer = async () => startTemporalDevServer({ cliPath: opts.temporalCliPath, port: temporalPort, uiPort: await freePort(), dbFile, namespace: 'default', log });
  // TEST_TEMPORAL=cluster: the four-process cluster instead, its persistence on DATABASE_URL's
  // server (so stopping this stack's PostgreSQL stays a fault of ours alone), else on the stack's own.
  const cluster = process.env.TEST_TEMPORAL === 'cluster' ? await startTestCluster({ serverUrl: process.env.DATABASE_URL ?? pg.url, log }) : undefined;
  let temporal: { address: string; stop(): Promise<void> } | undefined = cluster ?? (await startDevServer());
  const db = createDb({ url: pg.url, poolMax: 5 });
  await migrateLatest(db);

  const env = processEnv({ databaseUrl: pg.url, temporalAddress: temporal.address, apiPort, extra: opts.extraEnv });
  const startApi = () => spawnProcess('api', env, 'API listening', [...(opts.nodeArgs ?? []), ...(opts.apiNodeArgs ?? [])]);
  const startWorker = () => spawnProcess('worker', env, 'worker polling', opts.nodeArgs);
  const [api, worker] = await Promise.all([startApi(), startWorker()]);

  const stack: FaultStack = {
    env,
    apiURL: `http://127.0.0.1:${apiPort}`,
    db,
    repos: createRepositories(db),
    api,
    worker,
    startApi: async () => (stack.api = await startApi()),
    startWorker: async () => (stack.worker = await startWorker()),
    async stopPostgres() {
      await pg?.stop();
      pg = undefined;
    },
    async startPostgres() {
      pg = await startEmbeddedPostgres({ dataDir: dir, port: pgPort, log });
    },
    async stopTemporal() {
      await temporal?.stop();
      temporal = undefined;
    },
    async startTemporal() {
      if (cluster) {
        await cluster.startServices(...clusterServices);
        temporal = cluster;
      } else {
        temporal = await startDevServer();
      }
    },
    async close() {
      await Promise.all([kill(stack.api), kill(stack.worker)]);
      await db.destroy();
      await temporal?.stop();
      await cluster?.close();
      await pg?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return stack;
}
