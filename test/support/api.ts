import type { Client } from '@temporalio/client';
import type { Config } from '../../config/env';
import { Registry } from 'prom-client';
import { createApiMetrics } from '../../api/metrics';
import { startApiServer } from '../../api/server/server';
import { apiListening } from '../../api/server/listening';
import { createDb, type Db } from '../../db/connect';
import { createRepositories, type Repositories } from '../../db/repositories';
import type { Workspace } from '../../domain/workspace';
import { createLogger, type Logger } from '../../infra/logger';
import { payloadCodecFromConfig } from '../../infra/payload-codec';
import { connectTemporalClient } from '../../infra/temporal-connection';
import { fixture } from './fixture';

/** A running test API: what tests read and call. */
export interface RunningApi {
  baseURL: string;
  /** The HTTPS listener's port, when the config sets HTTPS_PORT (0 there: a free one). */
  httpsPort: number | undefined;
  db: Db;
  repos: Repositories;
  temporal: Client;
  /** A new workspace and a live key for it. */
  /** `diagnostics`: the operator flag that lets it run the diagnostics probe. */
  newWorkspace(opts?: { name?: string; credits?: number; diagnostics?: boolean }): Promise<{ workspace: Workspace; apiKey: string; keyId: string }>;
}

export interface TestApi extends RunningApi {
  stop(): Promise<void>;
}

export interface TestApiOptions {
  /** Replaces the fixture's config (e.g. other task queues, so turns go to a worker a test controls). */
  config?: Config;
  logger?: Logger;
  /** The port to listen on (default: a free one), for a config whose PUBLIC_BASE_URL must name it. */
  port?: number;
  /** The HTTPS listener's port (default: the config's HTTPS_PORT; 0: a free one). */
  httpsPort?: number;
  /** The address to listen on (default 127.0.0.1; 0.0.0.0 lets a test call it from a non-loopback address). */
  host?: string;
  /** How long the API key cache keeps an entry (default 60 s): a test of what follows its expiry sets a moment. */
  keyCacheTtlMs?: number;
}

/** The real API on a free port, against the fixture's PostgreSQL and Temporal. */
export async function startTestApi(opts: TestApiOptions = {}): Promise<TestApi> {
  const f = fixture();
  const config = opts.config ?? f.config;
  // A config may name a database of its own (a test that rewrites every row, e.g. secrets rekey).
  const databaseUrl = config.DATABASE_URL ?? f.databaseUrl;
  const db = createDb({ url: databaseUrl, poolMax: 10 });
  const repos = createRepositories(db);
  const temporal = await connectTemporalClient({ address: f.temporalAddress, namespace: 'default', tls: false, payloadCodec: payloadCodecFromConfig(config) });
  const logger = opts.logger ?? createLogger('silent');
  const listening = apiListening(databaseUrl, logger, repos.apiKeys, opts.keyCacheTtlMs === undefined ? undefined : { maxKeys: 10_000, ttlMs: opts.keyCacheTtlMs });
  await listening.start();
  const metrics = createApiMetrics(new Registry());
  const server = await startApiServer(
    { config, db, repos, temporal, logger, hub: listening.hub, keyCache: listening.keyCache, metrics },
    opts.port ?? 0,
    opts.host ?? '127.0.0.1',
    opts.httpsPort,
  );
  return {
    baseURL: `http://127.0.0.1:${server.port}`,
    httpsPort: server.httpsPort,
    db,
    repos,
    temporal,
    async stop() {
      await server.close();
      await listening.close();
      await temporal.connection.close();
      await db.destroy();
    },
    async newWorkspace(opts = {}) {
      const workspace = await repos.workspaces.create({ name: opts.name ?? 'test', credits: opts.credits ?? 100 });
      if (opts.diagnostics) await repos.workspaces.setDiagnosticsAllowed({ id: workspace.id, allowed: true });
      const { record, apiKey } = await repos.apiKeys.create({ workspaceId: workspace.id });
      return { workspace, apiKey, keyId: record.id };
    },
  };
}

/**
 * The test API for the tests of the calling `describe`: started by a `before` hook registered
 * here and stopped by an `after` hook. Call it first in the describe, so later hooks can use it.
 * The members of what it returns read the running API, so use them in hooks and tests only.
 * `options` is called when the API starts (it may read `fixture()`).
 */
export function useTestApi(options: () => TestApiOptions = () => ({})): RunningApi {
  let running: TestApi | undefined;
  before(async () => {
    running = await startTestApi(options());
  });
  after(async () => {
    await running?.stop();
    running = undefined;
  });
  return lazyApi(() => {
    if (!running) throw new Error('useTestApi: the API runs between the before and after hooks of the describe that called useTestApi');
    return running;
  });
}

/** The members of the API `get` returns when each is read: a handle made before the API starts. */
export function lazyApi(get: () => RunningApi): RunningApi {
  return {
    get baseURL() {
      return get().baseURL;
    },
    get httpsPort() {
      return get().httpsPort;
    },
    get db() {
      return get().db;
    },
    get repos() {
      return get().repos;
    },
    get temporal() {
      return get().temporal;
    },
    newWorkspace: (opts) => get().newWorkspace(opts),
  };
}
