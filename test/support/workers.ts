import type { ChildProcess } from 'node:child_process';
import { type Config, loadConfig } from '../../config/env';
import { createDb } from '../../db/connect';
import { randomToken } from '../../domain/ids';
import { createLogger } from '../../infra/logger';
import { startWorkerFromConfig } from '../../workers/from-config';
import { spawnCli } from '../../harness/cli';
import { testEnvironment } from '../../harness/test-env';
import { type Proc, spawnProcess } from '../../harness/fault-stack';
import { fixture } from './fixture';

/**
 * Environments and workers of their own for tests that need a different model or that kill
 * workers: a fresh task-queue prefix keeps their turns away from the fixture's worker.
 */
export function isolatedEnv(extra: Record<string, string>): Record<string, string> {
  const f = fixture();
  return testEnvironment({
    databaseUrl: f.databaseUrl,
    temporalAddress: f.temporalAddress,
    taskQueuePrefix: `x${randomToken(8)}-`,
    // The fixture's keys: values stored through the test API must open in these workers.
    keys: f.config,
    logLevel: 'silent',
    oneCallerAddress: true,
    extra,
  });
}

export function isolatedConfig(env: Record<string, string>): Config {
  return loadConfig(env);
}

/** A worker in this process with the given configuration (activities log nothing of their own); `stop` drains it. */
export async function startInProcessWorker(config: Config): Promise<{ stop(): Promise<void> }> {
  const db = createDb({ url: config.DATABASE_URL!, poolMax: 5 });
  const worker = await startWorkerFromConfig({ config, logger: createLogger('silent'), db }).catch(async (e: unknown) => {
    await db.destroy();
    throw e;
  });
  return {
    async stop() {
      await worker.stop();
      await db.destroy();
    },
  };
}

/** `hosted-agents worker` as its own process (so a test can SIGKILL it). Resolves once it polls. */
export function spawnWorker(env: Record<string, string>): Promise<Proc> {
  return spawnProcess('worker', env, 'worker polling');
}

/** `hosted-agents api` as its own process on PORT (from `env`); resolves once GET /healthz answers 200. */
export async function spawnApi(env: Record<string, string>): Promise<Proc> {
  const child = spawnCli('api', env);
  const deadline = Date.now() + 60_000;
  while (!(await fetch(`http://127.0.0.1:${env.PORT}/healthz`).then((r) => r.ok, () => false))) {
    if (child.exitCode !== null) throw new Error(`api exited with ${child.exitCode} before answering:\n${child.output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`api did not answer in 60 s:\n${child.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

/** SIGTERM, then resolves with the exit code once the process has exited (it drains and flushes first). */
export function stopProcess(child: ChildProcess, timeoutMs = 30_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not exit within ${timeoutMs} ms of SIGTERM`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}
