import type { Config } from '../../config/env';
import { defaultClusterPorts, startTemporalCluster } from '../../infra/temporal-cluster';
import { namespaceAnswers } from '../../infra/temporal-connection';
import { locateTemporalServer } from '../../infra/temporal-server-binaries';
import type { Say } from '../backing-services';

export interface ClusterCommandOptions {
  databaseUrl?: string;
  prefix: string;
  port: string;
  namespace: string;
}

/**
 * `hosted-agents temporal-cluster`: builds the Temporal server once (cached), creates or updates
 * its databases on a PostgreSQL server, starts the four services as processes of their own with
 * deploy/temporal/config/cluster.yaml, registers the namespace and our search attributes, prints
 * the frontend's address on stdout, and runs until Ctrl-C or SIGTERM stops them.
 * Each step is idempotent: run it again on the same database and it starts what is there.
 */
export async function temporalClusterCommand(config: Config, opts: ClusterCommandOptions, say: Say, print: Say): Promise<void> {
  const databaseUrl = opts.databaseUrl ?? config.DATABASE_URL;
  if (!databaseUrl) throw new Error('temporal-cluster needs a PostgreSQL server: --database-url or DATABASE_URL (its user must be able to create databases)');
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(opts.prefix)) throw new Error('--prefix: lower-case letters, digits and _, starting with a letter or _');
  const frontend = Number(opts.port);
  if (!Number.isInteger(frontend) || frontend < 1 || frontend > 65535) throw new Error('--port: a TCP port number');
  const address = `127.0.0.1:${frontend}`;
  if (await namespaceAnswers(address, opts.namespace)) {
    say(`a Temporal frontend already answers on ${address} with namespace ${opts.namespace}: nothing to start`);
    print(address);
    return;
  }
  const binaries = await locateTemporalServer(say);
  const cluster = await startTemporalCluster({
    binaries,
    databaseUrl,
    databasePrefix: opts.prefix,
    ports: { ...defaultClusterPorts, frontend },
    namespace: opts.namespace,
    log: say,
  });
  say(`Temporal cluster up: frontend, history, matching and worker on ${cluster.address}, namespace ${cluster.namespace}; Ctrl-C stops it`);
  print(cluster.address);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  say('stopping the Temporal services…');
  await cluster.stop();
}
