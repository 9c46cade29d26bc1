import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { activityDepsFromConfig, createActivities } from '../activities';
import { startApiServer } from '../api/server';
import { TurnEventHub } from '../api/sse/event-hub';
import type { Config } from '../config/env';
import { createDb, type Db } from '../db/connect';
import { createRepositories } from '../db/repositories';
import type { Logger } from '../infra/logger';
import { connectTemporalClient, connectTemporalWorker, temporalTargetFromConfig } from '../infra/temporal-connection';
import { installTemporalRuntime } from '../infra/temporal-runtime';
import { startWorkers } from '../workers/worker';

export interface Stoppable {
  stop(): Promise<void>;
}

/** The API process: a pool, a Temporal client, the HTTP server. */
export async function runApi(opts: {
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
}): Promise<Stoppable & { port: number }> {
  const db: Db = createDb({ url: opts.databaseUrl, poolMax: opts.config.DATABASE_POOL_MAX });
  // LISTEN needs a session of its own: not through a transaction-mode pooler.
  const hub = new TurnEventHub(opts.config.DATABASE_LISTEN_URL ?? opts.databaseUrl, opts.logger);
  let temporal: Client | undefined;
  try {
    await hub.start();
    temporal = await connectTemporalClient(temporalTargetFromConfig(opts.config, opts.temporalAddress));
    const server = await startApiServer({
      config: opts.config,
      db,
      repos: createRepositories(db),
      temporal,
      logger: opts.logger,
      hub,
    });
    const client = temporal;
    return {
      port: server.port,
      async stop() {
        await server.close();
        await hub.close();
        await client.connection.close();
        await db.destroy();
      },
    };
  } catch (e) {
    await hub.close();
    await temporal?.connection.close().catch(() => undefined);
    await db.destroy();
    throw e;
  }
}

/** The worker process: polls `turns` and `ops`; activities get their dependencies here. */
export async function runWorker(opts: {
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
}): Promise<Stoppable> {
  installTemporalRuntime(opts.logger);
  const db = createDb({ url: opts.databaseUrl, poolMax: opts.config.DATABASE_POOL_MAX });
  let connection: NativeConnection | undefined;
  try {
    connection = await connectTemporalWorker(temporalTargetFromConfig(opts.config, opts.temporalAddress));
    const workers = await startWorkers({
      connection,
      namespace: opts.config.TEMPORAL_NAMESPACE,
      taskQueues: opts.config.taskQueues,
      activities: createActivities(activityDepsFromConfig(opts.config, db)),
    });
    workers.done.catch((e: unknown) => opts.logger.fatal({ err: e }, 'worker stopped unexpectedly'));
    const conn = connection;
    return {
      async stop() {
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
