import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The bench's own settings, all from BENCH_* environment variables (defaults in brackets):
 * BENCH_REPLY (the fixed model reply) or BENCH_REPLY_WORDS [20]; BENCH_CHUNK_DELAY_MS [10]
 * (pause before each streamed chunk after the first); BENCH_CHUNK_SIZE [one word a chunk];
 * BENCH_WARMUP_TURNS [20]; BENCH_LATENCY_TURNS [100]; BENCH_CONCURRENCY [50]; BENCH_SECONDS [60];
 * BENCH_TURNS_PER_CONVERSATION [10] (a load loop starts a new conversation after this many turns,
 * so histories stay conversation-sized); BENCH_MAX_TURNS_PER_LOOP [100000]; BENCH_TURN_TIMEOUT_MS
 * [30000]; BENCH_DB_POOL_MAX [25] (DATABASE_POOL_MAX of the API and of the worker).
 * Scale-out: BENCH_TURNS_APIS [1] and BENCH_TURNS_WORKERS [1], how many API and worker processes
 * run against the one Temporal and PostgreSQL (the load loops go round-robin over the APIs).
 * BENCH_NODE_ARGS [none]: Node options, space-separated, put before the script of the API and
 * worker processes and of the bare chain's (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, which
 * NODE_OPTIONS refuses, or `--heapsnapshot-signal=SIGUSR2`).
 * BENCH_WORKER_LEGS [0]: 1 preloads bench/lib/worker-legs-hook.ts into our worker and the bare
 * chain's, and prints the legs between the first workflow task and the model request as their SDK
 * saw them (bench/lib/worker-legs.ts); the hook's own work is in every figure of that run.
 * BENCH_TEMPORAL [dev]: `dev` runs Temporal's dev server in memory; `cluster` a cluster of its own
 * (frontend, history, matching, worker processes; docs/temporal-cluster.md) on the bench's PostgreSQL server.
 * Also read: DATABASE_URL (a server to create a fresh database on; else embedded PostgreSQL),
 * TEMPORAL_CLI_PATH and TEMPORAL_CLI_DOWNLOAD (how to find the Temporal dev server).
 */
export interface BenchConfig {
  reply: string;
  chunkDelayMs: number;
  chunkSize: number | undefined;
  warmupTurns: number;
  latencyTurns: number;
  concurrency: number;
  seconds: number;
  turnsPerConversation: number;
  maxTurnsPerLoop: number;
  turnTimeoutMs: number;
  dbPoolMax: number;
  apis: number;
  workers: number;
  nodeArgs: string[];
  /** Where the worker-legs hook writes (BENCH_WORKER_LEGS=1), else undefined. */
  workerLegsDir: string | undefined;
  temporal: 'dev' | 'cluster';
}

const WORDS =
  'The benchmark model answers with this fixed reply so that every stream can be checked word for word against the final reply it ends with and nothing else'.split(' ');

function int(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name}: a whole number ≥ ${min} (got ${JSON.stringify(raw)})`);
  return value;
}

function temporalKind(raw: string | undefined): 'dev' | 'cluster' {
  if (raw === undefined || raw === '' || raw === 'dev') return 'dev';
  if (raw === 'cluster') return 'cluster';
  throw new Error(`BENCH_TEMPORAL: dev or cluster (got ${JSON.stringify(raw)})`);
}

export function benchConfig(): BenchConfig {
  const words = int('BENCH_REPLY_WORDS', 20, 1);
  const reply =
    process.env.BENCH_REPLY?.trim() ||
    Array.from({ length: words }, (_, i) => WORDS[i % WORDS.length]).join(' ');
  const chunkSize = int('BENCH_CHUNK_SIZE', 0, 0);
  return {
    reply,
    chunkDelayMs: int('BENCH_CHUNK_DELAY_MS', 10, 0),
    chunkSize: chunkSize > 0 ? chunkSize : undefined,
    warmupTurns: int('BENCH_WARMUP_TURNS', 20, 0),
    latencyTurns: int('BENCH_LATENCY_TURNS', 100, 1),
    concurrency: int('BENCH_CONCURRENCY', 50, 1),
    seconds: int('BENCH_SECONDS', 60, 1),
    turnsPerConversation: int('BENCH_TURNS_PER_CONVERSATION', 10, 1),
    maxTurnsPerLoop: int('BENCH_MAX_TURNS_PER_LOOP', 100_000, 1),
    turnTimeoutMs: int('BENCH_TURN_TIMEOUT_MS', 30_000, 1000),
    dbPoolMax: int('BENCH_DB_POOL_MAX', 25, 1),
    apis: int('BENCH_TURNS_APIS', 1, 1),
    workers: int('BENCH_TURNS_WORKERS', 1, 1),
    nodeArgs: (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
    workerLegsDir: process.env.BENCH_WORKER_LEGS === '1' ? mkdtempSync(path.join(tmpdir(), 'bench-worker-legs-')) : undefined,
    temporal: temporalKind(process.env.BENCH_TEMPORAL),
  };
}

/** Node options of a worker process (ours or the bare chain's): BENCH_NODE_ARGS, and the legs hook when on. */
export function workerNodeArgs(cfg: BenchConfig): string[] {
  return cfg.workerLegsDir ? [...cfg.nodeArgs, '--require', 'tsx/cjs', '--require', path.join(__dirname, 'worker-legs-hook.ts')] : cfg.nodeArgs;
}

/** The environment the legs hook reads (nothing when it is off). */
export function workerLegsEnv(cfg: BenchConfig): Record<string, string> {
  return cfg.workerLegsDir ? { BENCH_WORKER_LEGS_DIR: cfg.workerLegsDir } : {};
}
