import type { Client } from '@temporalio/client';
import { Registry } from 'prom-client';
import type * as ApiMetricsModule from '../api/metrics';
import type * as ApiServerModule from '../api/server/server';
import type * as ListeningModule from '../api/server/listening';
import type { Config } from '../config/env';
import { type Db, processPool, warmPool } from '../db/connect';
import type * as RepositoriesModule from '../db/repositories';
import type { Logger } from '../infra/logger';
import { connectTemporalClient, temporalTargetFromConfig } from '../infra/temporal-connection';
import type * as WorkerFromConfigModule from '../workers/from-config';
import type * as RequestSpanModule from '../api/middleware/request-span';
import type * as OtelSpansModule from '../infra/tracing/otel-spans';
import type { Tracing } from '../infra/tracing/switch';
import type * as TracingTemporalModule from '../infra/tracing/temporal';

// Each side's code is loaded by the function that runs it (docs/operations.md: Start-up): an `api` process
// loads no activities (AI SDK, MCP client) or worker code, a `worker` process no HTTP server.
const apiSide = () => ({
  ...(require('../api/server/server') as typeof ApiServerModule),
  ...(require('../api/metrics') as typeof ApiMetricsModule),
  ...(require('../api/server/listening') as typeof ListeningModule),
  ...(require('../db/repositories') as typeof RepositoriesModule),
});
const workerSide = () => require('../workers/from-config') as typeof WorkerFromConfigModule;

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

/** The API process: a pool, a Temporal client, the HTTP server; `tracing` when on (its owner flushes it). */
export async function runApi(opts: {
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
  tracing?: Tracing;
  /** Shared with the worker under `start`, so the API's `/metrics` shows the worker's series; else the API's own. */
  registry?: Registry;
  /** `start` with the embedded dev server only: its UI's origin may call the codec from loopback without a token. */
  codecLocalUIOrigin?: string;
}): Promise<Stoppable & { port: number }> {
  const { startApiServer, apiListening, createRepositories, createApiMetrics } = apiSide();
  const traced = opts.tracing ? apiTracing(opts.tracing) : undefined;
  const db: Db = processPool(opts.config, opts.databaseUrl, opts.logger);
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
      metrics: createApiMetrics(opts.registry ?? new Registry()),
      ...(traced ? { requestSpan: traced.requestSpan } : {}),
      ...(opts.codecLocalUIOrigin ? { codecLocalUIOrigin: opts.codecLocalUIOrigin } : {}),
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

/** The worker process: polls `turns` and `ops` (workers/from-config.ts); `tracing` when on (its owner flushes it). */
export function runWorker(opts: {
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
  tracing?: Tracing;
  registry?: Registry;
}): Promise<Stoppable> {
  const { startWorkerFromConfig } = workerSide();
  const { tracing, ...rest } = opts;
  return startWorkerFromConfig({ ...rest, ...(tracing ? { traced: workerTracingSide(tracing) } : {}) });
}
