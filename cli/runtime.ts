import type { Client } from '@temporalio/client';
import { Registry } from 'prom-client';
import type { NativeConnection } from '@temporalio/worker';
import type * as ActivitiesModule from '../activities';
import type * as ApiMetricsModule from '../api/metrics';
import type * as ApiServerModule from '../api/server';
import type * as ListeningModule from '../api/listening';
import type { Config } from '../config/env';
import { createDb, type Db, warmPool } from '../db/connect';
import type * as RepositoriesModule from '../db/repositories';
import type { Logger } from '../infra/logger';
import { connectTemporalClient, connectTemporalWorker, temporalTargetFromConfig } from '../infra/temporal-connection';
import type * as TemporalRuntimeModule from '../infra/temporal-runtime';
import type * as ActivityDepsModule from '../workers/activity-deps';
import type * as WorkerHealthModule from '../workers/health-server';
import type * as WorkerMetricsModule from '../workers/metrics';
import type * as WorkerModule from '../workers/worker';
import type * as RequestSpanModule from '../api/middleware/request-span';
import type * as OtelSpansModule from '../infra/tracing/otel-spans';
import type { Tracing } from '../infra/tracing/switch';
import type * as TracingTemporalModule from '../infra/tracing/temporal';

// Each side's code is loaded by the function that runs it (docs/operations.md: Start-up): an `api` process
// loads no activities (AI SDK, MCP client) or worker code, a `worker` process no HTTP server.
const apiSide = () => ({
  ...(require('../api/server') as typeof ApiServerModule),
  ...(require('../api/metrics') as typeof ApiMetricsModule),
  ...(require('../api/listening') as typeof ListeningModule),
  ...(require('../db/repositories') as typeof RepositoriesModule),
});
const workerSide = () => ({
  ...(require('../activities') as typeof ActivitiesModule),
  ...(require('../workers/activity-deps') as typeof ActivityDepsModule),
  ...(require('../infra/temporal-runtime') as typeof TemporalRuntimeModule),
  ...(require('../workers/worker') as typeof WorkerModule),
  ...(require('../workers/health-server') as typeof WorkerHealthModule),
  ...(require('../workers/metrics') as typeof WorkerMetricsModule),
});

// Tracing's pieces load only when it is on (infra/tracing/switch.ts): off, no OpenTelemetry module loads.
const apiTracing = (tracing: Tracing) => ({
  clientInterceptors: (require('../infra/tracing/temporal') as typeof TracingTemporalModule).tracingClientInterceptors(tracing),
  requestSpan: (require('../api/middleware/request-span') as typeof RequestSpanModule).requestSpan(tracing.tracer),
});
const workerTracingSide = (tracing: Tracing) => ({
  tracing: (require('../infra/tracing/temporal') as typeof TracingTemporalModule).workerTracing(tracing),
  spans: (require('../infra/tracing/otel-spans') as typeof OtelSpansModule).otelSpans(tracing.tracer),
});

/** Loads both sides now (`start` runs both, and loads them before it waits on anything). */
export function preloadRuntime(): void {
  apiSide();
  workerSide();
}

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * The pool of an API or worker process: DATABASE_POOL_MIN connections are opened before the process
 * says it is ready (`warmPool`, beside its other start-up connections) and kept, so a burst of work
 * does not open them while it waits.
 */
function pooledDb(opts: { config: Config; databaseUrl: string }): Db {
  return createDb({ url: opts.databaseUrl, poolMax: opts.config.DATABASE_POOL_MAX, poolMin: opts.config.DATABASE_POOL_MIN });
}

/** The API process: a pool, a Temporal client, the HTTP server; `tracing` when on (its owner flushes it). */
export async function runApi(opts: {
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
  tracing?: Tracing;
}): Promise<Stoppable & { port: number }> {
  const { startApiServer, apiListening, createRepositories, createApiMetrics } = apiSide();
  const traced = opts.tracing ? apiTracing(opts.tracing) : undefined;
  const db: Db = pooledDb(opts);
  const repos = createRepositories(db);
  // LISTEN needs a session of its own: not through a transaction-mode pooler.
  const listening = apiListening(opts.config.DATABASE_LISTEN_URL ?? opts.databaseUrl, opts.logger, repos.apiKeys);
  let temporal: Client | undefined;
  try {
    // The LISTEN session and the Temporal connection are made side by side: start-up waits for the slower, not both.
    const [listened, connected] = await Promise.allSettled([
      listening.start(),
      connectTemporalClient(temporalTargetFromConfig(opts.config, opts.temporalAddress), traced?.clientInterceptors),
      warmPool(db, opts.config.DATABASE_POOL_MIN),
    ]);
    if (connected.status === 'fulfilled') temporal = connected.value;
    if (listened.status === 'rejected') throw listened.reason;
    if (connected.status === 'rejected') throw connected.reason;
    const client = connected.value;
    const server = await startApiServer({
      config: opts.config,
      db,
      repos,
      temporal: client,
      logger: opts.logger,
      hub: listening.hub,
      keyCache: listening.keyCache,
      // The process's own registry, made here and passed down (docs/operations.md: Metrics).
      metrics: createApiMetrics(new Registry()),
      ...(traced ? { requestSpan: traced.requestSpan } : {}),
    });
    return {
      port: server.port,
      async stop() {
        await server.close();
        await listening.close();
        await client.connection.close();
        await db.destroy();
      },
    };
  } catch (e) {
    await listening.close();
    await temporal?.connection.close().catch(() => undefined);
    await db.destroy();
    throw e;
  }
}

/** The worker process: polls `turns` and `ops`; activities get their dependencies here; `tracing` when on (its owner flushes it). */
export async function runWorker(opts: {
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
  tracing?: Tracing;
}): Promise<Stoppable> {
  const { activityDepsFromConfig, createActivities, createWorkerMetrics, installTemporalRuntime, startWorkerHealthServer, startWorkers } = workerSide();
  // Before any Temporal connection of this process (Runtime.install's rule).
  installTemporalRuntime(opts.logger, opts.config.TEMPORAL_METRICS_ADDRESS);
  const metrics = createWorkerMetrics(new Registry());
  const db = pooledDb(opts);
  let connection: NativeConnection | undefined;
  try {
    const target = temporalTargetFromConfig(opts.config, opts.temporalAddress);
    [connection] = await Promise.all([connectTemporalWorker(target), warmPool(db, opts.config.DATABASE_POOL_MIN)]);
    const traced = opts.tracing ? workerTracingSide(opts.tracing) : undefined;
    const deps = activityDepsFromConfig(opts.config, db, metrics.turns, traced?.spans);
    const workers = await startWorkers({
      connection,
      namespace: opts.config.TEMPORAL_NAMESPACE,
      taskQueues: opts.config.taskQueues,
      activities: createActivities(deps),
      sinks: metrics.sinks,
      identity: deps.workerIdentity,
      liveness: deps.repos.workerLiveness,
      pruning: { repos: deps.repos, config: opts.config },
      logger: opts.logger,
      payloadCodec: target.payloadCodec,
      ...traced,
      tuning: { maxCachedWorkflows: opts.config.WORKER_MAX_CACHED_WORKFLOWS },
    });
    workers.done.catch((e: unknown) => opts.logger.fatal({ err: e }, 'worker stopped unexpectedly'));
    const health =
      opts.config.WORKER_HEALTH_PORT === undefined
        ? undefined
        : await startWorkerHealthServer({
            port: opts.config.WORKER_HEALTH_PORT,
            host: opts.config.HOST,
            db,
            temporal: workers.client,
            polling: () => workers.polling(),
            logger: opts.logger,
            metrics: { registry: metrics.registry, token: opts.config.METRICS_TOKEN },
          });
    const conn = connection;
    return {
      async stop() {
        await health?.close();
        await workers.shutdown();
        await conn.close();
        await db.destroy();
      },
    };
  } catch (e) {
    await connection?.close().catch(() => undefined);
    await db.destroy();
    throw e;
  }
}
