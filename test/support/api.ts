import type { Client } from '@temporalio/client';
import type { Config } from '../../config/env';
import { startApiServer } from '../../api/server';
import { TurnEventHub } from '../../api/sse/event-hub';
import { createDb, type Db } from '../../db/connect';
import { createRepositories, type Repositories } from '../../db/repositories';
import type { Workspace } from '../../domain/workspace';
import { createLogger, type Logger } from '../../infra/logger';
import { connectTemporalClient } from '../../infra/temporal-connection';
import { fixture } from './fixture';

export interface TestApi {
  baseURL: string;
  db: Db;
  repos: Repositories;
  temporal: Client;
  stop(): Promise<void>;
  /** A new workspace and a live key for it. */
  newWorkspace(opts?: { name?: string; credits?: number }): Promise<{ workspace: Workspace; apiKey: string; keyId: string }>;
}

/**
 * The real API on a free port, against the fixture's PostgreSQL and Temporal. `config` replaces
 * the fixture's (e.g. other task queues, so turns go to a worker a test controls).
 */
export async function startTestApi(opts: { config?: Config; logger?: Logger } = {}): Promise<TestApi> {
  const f = fixture();
  const config = opts.config ?? f.config;
  const db = createDb({ url: f.databaseUrl, poolMax: 10 });
  const repos = createRepositories(db);
  const temporal = await connectTemporalClient({ address: f.temporalAddress, namespace: 'default', tls: false });
  const logger = opts.logger ?? createLogger('silent');
  const hub = new TurnEventHub(f.databaseUrl, logger);
  await hub.start();
  const server = await startApiServer({ config, db, repos, temporal, logger, hub }, 0, '127.0.0.1');
  return {
    baseURL: `http://127.0.0.1:${server.port}`,
    db,
    repos,
    temporal,
    async stop() {
      await server.close();
      await hub.close();
      await temporal.connection.close();
      await db.destroy();
    },
    async newWorkspace(opts = {}) {
      const workspace = await repos.workspaces.create({ name: opts.name ?? 'test', credits: opts.credits ?? 100 });
      const { record, apiKey } = await repos.apiKeys.create({ workspaceId: workspace.id });
      return { workspace, apiKey, keyId: record.id };
    },
  };
}
