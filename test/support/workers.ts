import { Registry } from 'prom-client';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createActivities } from '../../activities';
import { type Config, loadConfig } from '../../config/env';
import { createDb } from '../../db/connect';
import { randomToken } from '../../domain/ids';
import { connectTemporalWorker } from '../../infra/temporal-connection';
import { createLogger } from '../../infra/logger';
import { payloadCodecFromConfig } from '../../infra/payload-codec';
import { activityDepsFromConfig } from '../../workers/activity-deps';
import { createWorkerMetrics } from '../../workers/metrics';
import { startWorkers } from '../../workers/worker';
import { cliEntry, repoRoot } from './cli';
import { fixture } from './fixture';

/**
 * Environments and workers of their own for tests that need a different model or that kill
 * workers: a fresh task-queue prefix keeps their turns away from the fixture's worker.
 */
export function isolatedEnv(extra: Record<string, string>): Record<string, string> {
  const f = fixture();
  return {
    DATABASE_URL: f.databaseUrl,
    TEMPORAL_ADDRESS: f.temporalAddress,
    TEMPORAL_TASK_QUEUE_PREFIX: `x${randomToken(8)}-`,
    URL_SIGNING_KEY: f.config.URL_SIGNING_KEY ?? randomToken(40),
    // The same key as the fixture: values stored through the test API must open in these workers.
    SECRETS_KEY: f.config.SECRETS_KEY ?? randomBytes(32).toString('base64'),
    PAYLOAD_KEY: f.config.PAYLOAD_KEY ?? randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    MODEL_STANDARD: 'local:offline',
    MODEL_PREMIUM: 'local:offline',
    ...extra,
  };
}

export function isolatedConfig(env: Record<string, string>): Config {
  return loadConfig(env);
}

/** A worker in this process with the given configuration (activities log nothing of their own); `stop` drains it. */
export async function startInProcessWorker(config: Config): Promise<{ stop(): Promise<void> }> {
  const db = createDb({ url: config.DATABASE_URL!, poolMax: 5 });
  const connection = await connectTemporalWorker({ address: config.TEMPORAL_ADDRESS!, namespace: 'default', tls: false });
  const metrics = createWorkerMetrics(new Registry());
  const deps = activityDepsFromConfig(config, db, metrics.turns);
  const workers = await startWorkers({
    connection,
    namespace: 'default',
    taskQueues: config.taskQueues,
    activities: createActivities(deps),
    sinks: metrics.sinks,
    identity: deps.workerIdentity,
    liveness: deps.repos.workerLiveness,
    pruning: { repos: deps.repos, config: config },
    logger: createLogger('silent'),
    payloadCodec: payloadCodecFromConfig(config),
  });
  return {
    async stop() {
      await workers.shutdown();
      await connection.close();
      await db.destroy();
    },
  };
}

/** `hosted-agents worker` as its own process (so a test can SIGKILL it). Resolves once it polls. */
export function spawnWorker(env: Record<string, string>): Promise<ChildProcess & { output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry, 'worker'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`worker did not start in 60 s:\n${output}`)), 60_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('worker polling')) {
        clearTimeout(timer);
        resolve(Object.assign(child, { output: () => output }));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before polling:\n${output}`));
    });
  });
}
