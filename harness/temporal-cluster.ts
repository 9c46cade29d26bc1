import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import { freePort } from '../infra/temporal-dev-server';
import { type ClusterHandle, startTemporalCluster } from './temporal-cluster-launcher';
import { locateTemporalServer } from './temporal-server-binaries';

/** A free port below 32768: Temporal stores membership ports in a smallint column. */
async function smallPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isFree(port)) return port;
  }
  throw new Error('no free port below 32768 after 50 tries');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export interface TestCluster extends ClusterHandle {
  /** Its persistence and visibility databases, on the server given. */
  databases: [string, string];
  /** Stops the services and drops the cluster's two databases. */
  close(): Promise<void>;
}

/**
 * A Temporal cluster of its own for a test run or a bench: four service processes on free ports,
 * persistence and visibility in two new databases `ha_tclu_<random>[_visibility]` on `serverUrl`'s
 * PostgreSQL server, dropped by `close()`.
 */
export async function startTestCluster(opts: { serverUrl: string; log: (line: string) => void; poolSize?: number }): Promise<TestCluster> {
  const binaries = await locateTemporalServer(opts.log);
  const prefix = `ha_tclu_${randomBytes(4).toString('hex')}`;
  const port = () => freePort();
  const ports = {
    frontend: await port(),
    frontendHttp: await port(),
    history: await port(),
    matching: await port(),
    worker: await port(),
    membership: { frontend: await smallPort(), history: await smallPort(), matching: await smallPort(), worker: await smallPort() },
  };
  // Tests run up to three clusters on one PostgreSQL server (the run's, the fault stack's, the backup
  // test's): 4 connections a service keeps them inside max_connections; a bench takes the default.
  const cluster = await startTemporalCluster({ binaries, databaseUrl: opts.serverUrl, databasePrefix: prefix, ports, namespace: 'default', log: opts.log, poolSize: opts.poolSize ?? 4 });
  return {
    ...cluster,
    databases: [prefix, `${prefix}_visibility`],
    async close() {
      await cluster.stop();
      const admin = new URL(opts.serverUrl);
      admin.pathname = '/postgres';
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      try {
        for (const name of [prefix, `${prefix}_visibility`]) await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
