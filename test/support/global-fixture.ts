import { loadConfig } from '../../config/env';
import { createDb, type Db } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { randomToken } from '../../domain/ids';
import { createLogger } from '../../infra/logger';
import { temporalCliFromEnv } from '../../harness/temporal-cli';
import { type DevServerHandle, freePort, startTemporalDevServer } from '../../infra/temporal-dev-server';
import { startWorkerFromConfig } from '../../workers/from-config';
import { freshDatabase as createFreshDatabase } from '../../harness/database';
import { fixture, setFixture } from './fixture';
import { recordHistories } from './record-histories';
import { payloadCodecFromConfig } from '../../infra/payload-codec';
import { connectTemporalClient } from '../../infra/temporal-connection';
import { startTestCluster, type TestCluster } from '../../harness/temporal-cluster';
import { testEnvironment } from '../../harness/test-env';

/**
 * One real PostgreSQL and one real Temporal server for the whole run, plus a worker — started
 * only when the run selects a test that is not a unit test, `*.unit.test.ts` (those never need them, so
 * `npm run test:unit` or `mocha --grep` on unit tests boots nothing):
 * - PostgreSQL: a fresh database on DATABASE_URL's server when it is set, else an embedded
 *   cluster in a temporary directory.
 * - Temporal: TEST_TEMPORAL_ADDRESS when set (e.g. the dev server `npm start` runs, so the runs
 *   stay visible in its UI); with TEST_TEMPORAL=cluster, a cluster of four service processes with
 *   PostgreSQL persistence on the same server (`npm run test:cluster`); else a dev server on free
 *   ports (UI on TEST_TEMPORAL_UI_PORT or a free port).
 */
const stops: Array<() => Promise<void>> = [];
const log = (line: string) => process.stderr.write(`[fixture] ${line}\n`);

async function freshDatabase(): Promise<string> {
  const database = await createFreshDatabase({ prefix: 'ha_test', log });
  stops.push(() => database.drop());
  return database.url;
}

/** The Temporal server of this run: given, a cluster of our own (TEST_TEMPORAL=cluster), or a dev server. */
async function startTemporal(databaseUrl: string, cliPath: string): Promise<{ address: string; uiURL?: string; cluster?: TestCluster }> {
  if (process.env.TEST_TEMPORAL_ADDRESS) return { address: process.env.TEST_TEMPORAL_ADDRESS };
  if (process.env.TEST_TEMPORAL === 'cluster') {
    const started = Date.now();
    const cluster = await startTestCluster({ serverUrl: databaseUrl, log });
    stops.push(() => cluster.close());
    log(`Temporal cluster (frontend, history, matching and worker processes) on ${cluster.address}, up in ${Date.now() - started} ms`);
    return { address: cluster.address, cluster };
  }
  const server: DevServerHandle = await startTemporalDevServer({
    cliPath,
    port: await freePort(),
    uiPort: Number(process.env.TEST_TEMPORAL_UI_PORT) || (await freePort()),
    namespace: 'default',
    log,
  });
  stops.push(() => server.stop());
  return server;
}

/** Whether a test this run will execute (after --grep) is not a unit test (`*.unit.test.ts`). */
function needsServices(runner: Mocha.Runner): boolean {
  const outsideUnit = (file: string | undefined) => !file?.endsWith('.unit.test.ts');
  if (runner.suite.tests.some((t) => outsideUnit(t.file))) return true;
  return runner.suite.suites.some((suite) => outsideUnit(suite.file) && runner.grepTotal(suite) > 0);
}

export async function mochaGlobalSetup(this: Mocha.Runner): Promise<void> {
  if (!needsServices(this)) return;
  const temporalCliPath = await temporalCliFromEnv(log);
  const databaseUrl = await freshDatabase();
  const temporal = await startTemporal(databaseUrl, temporalCliPath);
  if (temporal.uiURL) log(`Temporal UI for this run: ${temporal.uiURL}`);

  const config = loadConfig(
    testEnvironment({ databaseUrl, temporalAddress: temporal.address, taskQueuePrefix: `t${randomToken(6)}-`, logLevel: 'silent', oneCallerAddress: true }),
  );
  const db: Db = createDb({ url: databaseUrl, poolMax: 10 });
  await migrateLatest(db);

  const worker = await startWorkerFromConfig({ config, logger: createLogger('silent'), db });
  stops.push(async () => {
    await worker.stop();
    await db.destroy();
  });

  setFixture({ databaseUrl, temporalAddress: temporal.address, temporalUiURL: temporal.uiURL, temporalCliPath, config, temporalCluster: temporal.cluster });
}

export async function mochaGlobalTeardown(): Promise<void> {
  // Before anything stops: the histories are read from the still-running Temporal server.
  if (process.env.RECORD_HISTORIES === '1' && stops.length > 0) {
    const f = fixture();
    const client = await connectTemporalClient({ address: f.temporalAddress, namespace: 'default', tls: false, payloadCodec: payloadCodecFromConfig(f.config) });
    await recordHistories(client, log)
      .catch((e: unknown) => log(`RECORD_HISTORIES failed: ${String(e)}`))
      .finally(() => client.connection.close());
  }
  setFixture(undefined);
  for (const stop of stops.reverse()) await stop().catch((e: unknown) => log(`teardown: ${String(e)}`));
}
