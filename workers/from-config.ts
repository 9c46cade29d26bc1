import { Registry } from 'prom-client';
import type { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Config } from '../config/env';
import { type Db, processPool, warmPool } from '../db/connect';
import type { Logger } from '../infra/logger';
import { connectTemporalWorker, temporalTargetFromConfig } from '../infra/temporal-connection';
import { installTemporalRuntime } from '../infra/temporal-runtime';
import type { Spans } from '../infra/tracing/spans';
import type { WorkerTracing } from '../infra/tracing/temporal';
import { activityDepsFromConfig } from './activity-deps';
import { temporalKnowledgeIndexer } from '../infra/knowledge-indexer';
import { startWorkerHealthServer } from './health-server';
import { resumePendingIndexing } from './pending-indexing';
import { createWorkerMetrics } from './metrics';
import { startWorkers } from './worker';

interface WorkerFromConfigOptions {
  config: Config;
  logger: Logger;
  /** Where PostgreSQL and Temporal are (`start` runs embedded ones); DATABASE_URL and TEMPORAL_ADDRESS when absent. */
  databaseUrl?: string;
  temporalAddress?: string;
  /** A pool the caller owns and closes (the tests size theirs); else one of DATABASE_POOL_MAX, closed on stop. */
  db?: Db;
  /** Tracing's worker side when it is on (cli/runtime.ts loads it only then; its owner flushes it). */
  traced?: { tracing: WorkerTracing; spans: Spans };
  /** The process's registry when another part shares it (`start`: the API serves the worker's series too); else its own. */
  registry?: Registry;
}

/**
 * A worker from configuration — the one way one is built, by `hosted-agents worker`, `start`, the
 * test fixture and the tests' own workers: Temporal's runtime, the pool, the connection, the
 * activities' dependencies, both Workers (`turns` and `ops`) and the health port when
 * WORKER_HEALTH_PORT is set. `stop` drains the Workers and closes what it opened.
 */
export async function startWorkerFromConfig(opts: WorkerFromConfigOptions): Promise<{ stop(): Promise<void> }> {
  const { config, logger, traced } = opts;
  const databaseUrl = opts.databaseUrl ?? config.DATABASE_URL;
  const temporalAddress = opts.temporalAddress ?? config.TEMPORAL_ADDRESS;
  if (!databaseUrl || !temporalAddress) throw new Error('a worker needs DATABASE_URL and TEMPORAL_ADDRESS');
  // Before any Temporal connection of this process (Runtime.install's rule).
  installTemporalRuntime(logger, config.TEMPORAL_METRICS_ADDRESS);
  const metrics = createWorkerMetrics(opts.registry ?? new Registry());
  const db = opts.db ?? processPool(config, databaseUrl, logger);
  const closeDb = () => (opts.db ? Promise.resolve() : db.destroy());
  let connection: NativeConnection | undefined;
  try {
    const target = temporalTargetFromConfig(config, temporalAddress);
    [connection] = await Promise.all([connectTemporalWorker(target), opts.db ? 0 : warmPool(db, config.DATABASE_POOL_MIN)]);
    const deps = activityDepsFromConfig(config, db, metrics.turns, traced?.spans);
    const workers = await startWorkers({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueues: config.taskQueues,
      activities: createActivities(deps),
      sinks: metrics.sinks,
      identity: deps.workerIdentity,
      liveness: deps.repos.workerLiveness,
      pruning: { repos: deps.repos, config },
      logger,
      payloadCodec: target.payloadCodec,
      ...traced,
      tuning: { maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS },
    });
    workers.done.catch((e: unknown) => logger.fatal({ err: e }, 'worker stopped unexpectedly'));
    const indexer = temporalKnowledgeIndexer(() => workers.client, config.taskQueues.ops, (err) => logger.warn({ err }, 'knowledge indexing could not be signalled'));
    void resumePendingIndexing({ repos: deps.repos, indexer, logger }).catch((err: unknown) => logger.warn({ err }, 'could not look for pending knowledge files'));
    const health =
      config.WORKER_HEALTH_PORT === undefined
        ? undefined
        : await startWorkerHealthServer({
            port: config.WORKER_HEALTH_PORT,
            host: config.HOST,
            db,
            temporal: workers.client,
            polling: () => workers.polling(),
            logger,
            metrics: { registry: metrics.registry, token: config.METRICS_TOKEN },
          });
    const conn = connection;
    return {
      async stop() {
        await health?.close();
        await workers.shutdown();
        await conn.close();
        await closeDb();
      },
    };
  } catch (e) {
    await connection?.close().catch(() => undefined);
    await closeDb();
    throw e;
  }
}
