import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { envSchema } from '../../config/env';
import { temporalCliFromEnv } from '../../harness/temporal-cli';
import { clusterServices } from '../../harness/temporal-cluster-launcher';
import { freePort, startTemporalDevServer } from '../../infra/temporal-dev-server';
import { startTestCluster } from '../../harness/temporal-cluster';
import { ChildProc } from '../../harness/child';
import { cliEntry, repoRoot } from '../../harness/cli';
import { freshDatabase } from '../../harness/database';
import { type ModelServer, startOpenAIServer } from '../../harness/model-servers/openai-server';
import { type BenchConfig, workerLegsEnv, workerNodeArgs } from './config';
import { findProcess, readStat } from './proc';

/**
 * Starts everything the bench measures, each piece registering its own clean-up: the scripted
 * OpenAI-compatible model server (in this process), PostgreSQL (a fresh database on DATABASE_URL's
 * server, or an embedded cluster in a temporary directory), an in-memory Temporal dev server, then
 * `hosted-agents migrate`, `workspace create`, and `api` and `worker` as separate processes
 * (`cfg.apis` and `cfg.workers` of each, every API on its own port).
 * Everything listens on, and is reached through, 127.0.0.1.
 */

export type Log = (line: string) => void;

/** Clean-up steps, run newest first; each failure is logged and the rest still run. */
export class Cleanup {
  private readonly steps: Array<{ name: string; run: () => Promise<void> }> = [];
  private done: Promise<void> | undefined;

  add(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  run(log: Log): Promise<void> {
    this.done ??= (async () => {
      for (const step of this.steps.reverse()) {
        await step.run().catch((e: unknown) => log(`clean-up of ${step.name} failed: ${e instanceof Error ? e.message : String(e)}`));
      }
    })();
    return this.done;
  }
}

export interface Stack {
  model: ModelServer;
  /** The (first) API, `http://127.0.0.1:<port>`. */
  baseURL: string;
  /** Every API process's base URL, in the order of `apis`. */
  baseURLs: string[];
  apiKey: string;
  databaseUrl: string;
  temporalAddress: string;
  apis: ChildProc[];
  workers: ChildProc[];
  /** Pids of the Temporal dev server, or of a cluster's four services (empty when not found). */
  temporalPids: number[];
  /** `dev server in memory` or `cluster (4 processes, PostgreSQL persistence)`. */
  temporalKind: string;
  /** The postmaster's pid, when PostgreSQL is on this machine. */
  postgresPid: number | undefined;
  /** Set when the server is shared (DATABASE_URL): the bench's own database. */
  postgresDatabases: string[] | undefined;
  /** A cluster's two databases (empty with the dev server): their backends are Temporal's CPU. */
  temporalDatabases: string[];
  postgresKind: string;
  /** A temporary directory of the run (removed at clean-up). */
  workDir: string;
}

/** The environment of our child processes: ours, minus every variable the service reads, plus `vars`. */
function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(envSchema.shape)) delete env[key];
  return { ...env, ...vars };
}

/** The postmaster's pid: the parent of our backend, when that backend is a process on this machine. */
async function postmasterPid(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const backend = rows[0] ? readStat(rows[0].pid) : undefined;
    return backend?.comm.includes('postgres') ? backend.ppid : undefined;
  } finally {
    await client.end();
  }
}

/**
 * `opts.env`: service variables for the API and worker that replace the defaults below (e.g. the
 * offline model and raised public-chat limits for bench/embed.ts).
 */
export async function startStack(cfg: BenchConfig, cleanup: Cleanup, log: Log, opts: { env?: Record<string, string> } = {}): Promise<Stack> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'ha-bench-'));
  cleanup.add('temporary directory', () => rm(workDir, { recursive: true, force: true }));

  const model = await startOpenAIServer();
  model.defaultResponse = { text: cfg.reply, chunkDelayMs: cfg.chunkDelayMs, ...(cfg.chunkSize ? { chunkSize: cfg.chunkSize } : {}) };
  cleanup.add('model server', () => model.close());

  const cliPath = await temporalCliFromEnv(log);
  const temporalPort = await freePort();
  const database = await freshDatabase({ prefix: 'ha_bench', dataDir: workDir, log });
  cleanup.add(database.shared ? `database ${database.shared}` : 'embedded PostgreSQL', () => database.drop());
  let temporal: { address: string; pids: () => number[]; kind: string; databases: string[] };
  if (cfg.temporal === 'cluster') {
    const cluster = await startTestCluster({ serverUrl: database.url, log, poolSize: 10 });
    // Added after the database: clean-up runs in reverse, so the cluster stops before it is dropped.
    cleanup.add('Temporal cluster', () => cluster.close());
    temporal = {
      address: cluster.address,
      pids: () => clusterServices.map((s) => cluster.process(s).pid).filter((pid): pid is number => pid !== undefined),
      kind: 'cluster (frontend, history, matching and worker processes; PostgreSQL persistence on the same server)',
      databases: cluster.databases,
    };
  } else {
    const server = await startTemporalDevServer({ cliPath, port: temporalPort, uiPort: await freePort(), namespace: 'default', log });
    cleanup.add('Temporal dev server', () => server.stop());
    const pid = findProcess(['start-dev', `--port ${temporalPort} `]);
    temporal = { address: server.address, pids: () => (pid === undefined ? [] : [pid]), kind: 'dev server in memory', databases: [] };
  }
  log(`PostgreSQL: ${database.kind}; Temporal ${temporal.kind} on ${temporal.address}`);

  const env = childEnv({
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    HOST: '127.0.0.1',
    DATA_DIR: workDir,
    URL_SIGNING_KEY: randomBytes(30).toString('base64url').slice(0, 40),
    SECRETS_KEY: randomBytes(32).toString('base64'),
    PAYLOAD_KEY: randomBytes(32).toString('base64'),
    MODEL_STANDARD: 'openai:bench',
    MODEL_PREMIUM: 'openai:bench',
    OPENAI_BASE_URL: `${model.url}/v1`,
    OPENAI_API_KEY: 'sk-bench',
    LOG_LEVEL: 'warn',
    DATABASE_POOL_MAX: String(cfg.dbPoolMax),
    TEMPORAL_CLI_DOWNLOAD: 'false',
    ...opts.env,
  });
  const run = (name: string, args: string[]) => new ChildProc(name, process.execPath, [cliEntry, ...args], { cwd: repoRoot, env, keepStdout: true });

  await run('migrate', ['migrate']).result(120_000);
  const created = JSON.parse(
    await run('workspace create', ['workspace', 'create', '--name', 'bench', '--credits', '1000000000', '--json']).result(60_000),
  ) as { workspace: { id: string }; apiKey: string };

  const ports = await Promise.all(Array.from({ length: cfg.apis }, () => freePort()));
  const apis = ports.map((port, i) => {
    const api = new ChildProc(`api ${i + 1}`, process.execPath, [...cfg.nodeArgs, cliEntry, 'api'], { cwd: repoRoot, env: { ...env, PORT: String(port) } });
    cleanup.add(api.name, () => api.stop());
    return api;
  });
  const workers = Array.from({ length: cfg.workers }, (_, i) => {
    const worker = new ChildProc(`worker ${i + 1}`, process.execPath, [...workerNodeArgs(cfg), cliEntry, 'worker'], { cwd: repoRoot, env: { ...env, ...workerLegsEnv(cfg) } });
    cleanup.add(worker.name, () => worker.stop());
    return worker;
  });
  await Promise.all([...apis.map((api) => api.waitFor(/API listening on/, 60_000)), ...workers.map((w) => w.waitFor(/worker polling/, 120_000))]);

  const baseURLs = ports.map((port) => `http://127.0.0.1:${port}`);
  for (const baseURL of baseURLs) {
    const ready = await fetch(`${baseURL}/readyz`);
    if (ready.status !== 200) throw new Error(`the API at ${baseURL} is not ready: ${ready.status} ${await ready.text()}`);
  }

  return {
    model,
    baseURL: baseURLs[0]!,
    baseURLs,
    apiKey: created.apiKey,
    databaseUrl: database.url,
    temporalAddress: temporal.address,
    apis,
    workers,
    temporalPids: temporal.pids(),
    temporalKind: temporal.kind,
    postgresPid: await postmasterPid(database.url),
    postgresDatabases: database.shared ? [database.shared] : undefined,
    temporalDatabases: temporal.databases,
    postgresKind: database.kind,
    workDir,
  };
}
