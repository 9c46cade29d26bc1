import { mkdir } from 'node:fs/promises';
import { Registry } from 'prom-client';
import type { Config } from '../../config/env';
import { createDb } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { createRepositories } from '../../db/repositories';
import { ensureKeyFile } from '../../infra/key-file';
import { DEV_OWNER_EMAIL, ownerSignInLink } from '../../services/owner-link';
import type { Logger } from '../../infra/logger';
import { startTracing } from '../../infra/tracing/switch';
import { devCredentialsPath, ensureDevCredentials } from '../dev-credentials';
import { startBanner } from '../banner';
import { preloadRuntime, runApi, runWorker, type Stoppable } from '../runtime';
import { openDatabase, openTemporal, type Say } from '../backing-services';
import { stopOnSignals, stopOnUnexpectedErrors } from '../shutdown';

/** Migrates, then makes sure the dev workspace, its key and its owner exist; makes the owner's sign-in link. */
async function prepareDatabase(url: string, config: Config, logger: Logger, say: Say) {
  const db = createDb({ url, poolMax: 2, logger });
  try {
    const applied = await migrateLatest(db);
    if (applied.length) say(`migrations applied: ${applied.join(', ')}`);
    const repos = createRepositories(db);
    const dev = await ensureDevCredentials(repos, config.dataDir, config.baseURL);
    // A fresh one-time sign-in link for the dev workspace's owner at every start, printed beside the key.
    const owner = await ownerSignInLink(repos, { workspaceId: dev.credentials.workspaceId, email: DEV_OWNER_EMAIL, baseURL: config.baseURL, ttlMinutes: config.SIGN_IN_LINK_TTL_MINUTES });
    return { ...dev, owner };
  } finally {
    await db.destroy();
  }
}

/**
 * `npm start`: the embedded default. Database and Temporal are started here unless
 * DATABASE_URL / TEMPORAL_ADDRESS point elsewhere; then migrations, a worker and the API,
 * all in one process tree that stops cleanly on SIGINT/SIGTERM.
 */
export async function startCommand(given: Config, logger: Logger, say: Say): Promise<void> {
  // This process runs the worker and the API: their code loads now, while nothing else competes
  // for the CPU (the `api` and `worker` commands load only their own side).
  preloadRuntime();
  await mkdir(given.dataDir, { recursive: true });
  // Keys an operator sets in production are made once and kept in DATA_DIR here.
  const config: Config = {
    ...given,
    URL_SIGNING_KEY: given.URL_SIGNING_KEY ?? (await ensureKeyFile(given.dataDir, 'url-signing.key')),
    SECRETS_KEY: given.SECRETS_KEY ?? (await ensureKeyFile(given.dataDir, 'secrets.key')),
    PAYLOAD_KEY: given.PAYLOAD_KEY ?? (await ensureKeyFile(given.dataDir, 'payload.key')),
    // The dev server's UI may call the codec endpoint (with no token from loopback: see below).
    CODEC_CORS_ORIGIN: given.CODEC_CORS_ORIGIN ?? (given.TEMPORAL_ADDRESS ? undefined : `http://localhost:${given.TEMPORAL_UI_PORT}`),
  };
  const stack: Stoppable[] = [];
  const stopAll = async () => {
    for (const s of stack.reverse()) await s.stop().catch((e: unknown) => say(`stop failed: ${String(e)}`));
  };
  // One tracer provider for both parts of this process; first in, so it is flushed last.
  const tracing = startTracing(config, 'start', logger);
  if (tracing) stack.push({ stop: () => tracing.shutdown() });
  stopOnSignals(stopAll, say);
  stopOnUnexpectedErrors(stopAll, (err, what) => logger.fatal({ err }, `${what}: stopping everything`));
  try {
    const database = await openDatabase(config, say);
    stack.push(database);
    const temporal = await openTemporal(config, say);
    stack.push(temporal);

    const { credentials, created, owner } = await prepareDatabase(database.url, config, logger, say);

    // One registry for both parts: the API's `/metrics` then shows the turns the worker counts.
    const registry = new Registry();
    stack.push(await runWorker({ config, databaseUrl: database.url, temporalAddress: temporal.address, logger, tracing, registry }));
    // Only with the embedded dev server: its UI (this origin, from loopback) decodes payloads with no
    // CODEC_TOKEN (docs/security.md: Codec endpoint); `hosted-agents api` never opens this.
    const codecLocalUIOrigin = temporal.embedded ? config.CODEC_CORS_ORIGIN : undefined;
    stack.push(
      await runApi({ config, databaseUrl: database.url, temporalAddress: temporal.address, logger, tracing, registry, ...(codecLocalUIOrigin ? { codecLocalUIOrigin } : {}) }),
    );

    const banner = startBanner(config, {
      ...(temporal.uiURL ? { temporalUI: temporal.uiURL } : {}),
      temporalAddress: temporal.address,
      embeddedDatabase: database.embedded,
      workspaceId: credentials.workspaceId,
      workspaceCreated: created,
      apiKey: credentials.apiKey,
      owner: { email: owner.email, signInLink: owner.url, ttlMinutes: config.SIGN_IN_LINK_TTL_MINUTES },
      credentialsPath: devCredentialsPath(config.dataDir),
      quietLogs: config.LOG_LEVEL === undefined,
    });
    for (const line of banner) say(line);
  } catch (e) {
    await stopAll();
    throw e;
  }
}
