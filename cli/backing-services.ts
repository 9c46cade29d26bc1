import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/env';
import { startEmbeddedPostgres } from '../infra/embedded-postgres';
import { locateTemporalCli } from '../infra/temporal-cli';
import { startTemporalDevServer } from '../infra/temporal-dev-server';

/**
 * The backing services the API and worker need, found or started: PostgreSQL (DATABASE_URL, or
 * the embedded server) and Temporal (TEMPORAL_ADDRESS, or the dev server).
 */

export type Say = (line: string) => void;

interface DatabaseService {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR (reused if already running). */
export async function openDatabase(config: Config, say: Say): Promise<DatabaseService> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: false, stop: async () => undefined };
  const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.EMBEDDED_PG_PORT, log: say });
  return { url: pg.url, embedded: true, stop: () => pg.stop() };
}

interface TemporalService {
  address: string;
  /** The Web UI, when we run the dev server. */
  uiURL?: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** TEMPORAL_ADDRESS when set; otherwise the Temporal dev server with history in DATA_DIR/temporal.sqlite. */
export async function openTemporal(config: Config, say: Say): Promise<TemporalService> {
  if (config.TEMPORAL_ADDRESS) return { address: config.TEMPORAL_ADDRESS, embedded: false, stop: async () => undefined };
  const cliPath = await locateTemporalCli({
    explicitPath: config.TEMPORAL_CLI_PATH,
    allowDownload: config.TEMPORAL_CLI_DOWNLOAD,
    log: say,
    env: config.processEnv,
  });
  await mkdir(config.dataDir, { recursive: true });
  const server = await startTemporalDevServer({
    cliPath,
    port: config.TEMPORAL_DEV_PORT,
    uiPort: config.TEMPORAL_UI_PORT,
    dbFile: path.join(config.dataDir, 'temporal.sqlite'),
    namespace: config.TEMPORAL_NAMESPACE,
    // The UI shows payloads decoded through our codec endpoint (open to the UI from loopback: docs/security.md).
    uiCodecEndpoint: `${config.baseURL}/v1/codec`,
    log: say,
  });
  return { address: server.address, uiURL: server.uiURL, embedded: true, stop: () => server.stop() };
}
