import type { Client } from '@temporalio/client';
import { startApiServer } from '../../api/server';
import { createDb, type Db } from '../../db/connect';
import { createRepositories, type Repositories } from '../../db/repositories';
import type { Workspace } from '../../domain/workspace';
import { createLogger } from '../../infra/logger';
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

/** The real API on a free port, against the fixture's PostgreSQL and Temporal. */
export async function startTestApi(): Promise<TestApi> {
  const f = fixture();
  const db = createDb({ url: f.databaseUrl, poolMax: 10 });
  const repos = createRepositories(db);
  const temporal = await connectTemporalClient({ address: f.temporalAddress, namespace: 'default', tls: false });
  const server = await startApiServer(
    { config: f.config, db, repos, temporal, logger: createLogger('silent') },
    0,
    '127.0.0.1',
  );
  return {
    baseURL: `http://127.0.0.1:${server.port}`,
    db,
    repos,
    temporal,
    async stop() {
      await server.close();
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
