import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { envSchema } from '../../config/env';
import type { TurnLimits } from '../../domain/runs/turn';
import { ChildProc } from '../../harness/child';
import { repoRoot } from '../../harness/cli';
import type { BareLoadResult } from '../bare/client';
import { type BenchConfig, workerLegsEnv, workerNodeArgs } from './config';
import { cpuBetween, type CpuTargets, sampleCpu } from './cpu';
import { rssKb } from './proc';
import type { Cleanup, Log, Stack } from './stack';
import { type Summary, summarise } from './stats';

/**
 * The engine baseline, on the same dev server after our load phase: the bare turn workflow
 * (bench/bare/) driven by a client process at the same concurrency for the same time, run by a
 * worker process with our Worker options. The client process stands where our API does in the
 * CPU columns. Task queues of its own, so neither worker takes the other's tasks.
 */
export interface BareResults {
  inWindow: number;
  afterWindow: number;
  errors: number;
  firstError: string | undefined;
  total: Summary;
  cpu: ReturnType<typeof cpuBetween>;
  workerPeakRssMb: number | undefined;
  /** The bare workflows run one at a time before the load (as many as our latency turns). */
  sequentialIds: string[];
}

const TSX = ['--require', 'tsx/cjs'];

/** Our turns' limits as the API passes them with its defaults (the bench sets none). */
function defaultLimits(): TurnLimits {
  const shape = envSchema.shape;
  return {
    maxSteps: shape.TURN_MAX_STEPS.parse(undefined),
    modelMaxAttempts: shape.MODEL_MAX_ATTEMPTS.parse(undefined),
    heartbeatTimeoutMs: shape.MODEL_HEARTBEAT_TIMEOUT_MS.parse(undefined),
    modelRetryInitialMs: shape.MODEL_RETRY_INITIAL_MS.parse(undefined),
    turnTimeoutMs: shape.TURN_TIMEOUT_MS.parse(undefined),
  };
}

const noop = () => undefined;
const quietBundler = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m) };

export async function barePhase(stack: Stack, cfg: BenchConfig, cleanup: Cleanup, log: Log): Promise<BareResults> {
  const env = process.env;
  const cache = String(envSchema.shape.WORKER_MAX_CACHED_WORKFLOWS.parse(undefined));
  // Bundled here, like ours by `npm run build`: the worker process then holds no bundler.
  const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../bare/workflows'), logger: quietBundler });
  const codePath = path.join(stack.workDir, 'bare-workflow-bundle.js');
  await writeFile(codePath, bundle.code);
  const workerArgs = ['bench/bare/worker.ts', stack.temporalAddress, 'bare-turns', 'bare-ops', cache, codePath];
  const worker = new ChildProc('bare worker', process.execPath, [...workerNodeArgs(cfg), ...TSX, ...workerArgs], { cwd: repoRoot, env: { ...env, ...workerLegsEnv(cfg) } });
  cleanup.add('bare worker', () => worker.stop());
  await worker.waitFor(/bare worker polling/, 120_000);
  const args = [stack.temporalAddress, 'bare-turns', String(cfg.concurrency), String(cfg.seconds), String(cfg.warmupTurns), String(cfg.latencyTurns), JSON.stringify(defaultLimits())];
  const client = new ChildProc('bare client', process.execPath, [...cfg.nodeArgs, ...TSX, 'bench/bare/client.ts', ...args], { cwd: repoRoot, env, keepStdout: true });
  cleanup.add('bare client', () => client.stop());
  await client.waitFor(/window start/, 120_000);
  const pids: CpuTargets = {
    api: [client.pid],
    worker: [worker.pid],
    temporal: stack.temporalPids,
    postgres: stack.postgresPid,
    postgresDatabases: stack.postgresDatabases,
    temporalDatabases: stack.temporalDatabases,
  };
  const begin = sampleCpu(pids);
  log(`bare: ${cfg.concurrency} concurrent loops for ${cfg.seconds} s`);
  const end = await new Promise<ReturnType<typeof sampleCpu>>((resolve) => setTimeout(() => resolve(sampleCpu(pids)), cfg.seconds * 1000));
  const lines = (await client.result(cfg.seconds * 1000 + cfg.turnTimeoutMs + 60_000)).trim().split('\n');
  const result = JSON.parse(lines[lines.length - 1] ?? '{}') as BareLoadResult;
  const workerPeakKb = rssKb(worker.pid);
  await worker.stop();
  return {
    inWindow: result.inWindow,
    afterWindow: result.afterWindow,
    errors: result.errors,
    firstError: result.firstError,
    total: summarise(result.totalMs),
    cpu: cpuBetween(begin, end),
    workerPeakRssMb: workerPeakKb === undefined ? undefined : workerPeakKb / 1024,
    sequentialIds: result.sequentialIds ?? [],
  };
}
