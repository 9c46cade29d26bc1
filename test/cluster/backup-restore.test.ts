import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Service, type TurnEvent } from '../../sdk/src';
import { createDb, type Db } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { createRepositories } from '../../db/repositories';
import { randomToken } from '../../domain/ids';
import { freshDatabase, type FreshDatabase } from '../../harness/database';
import { kill, type Proc, processEnv, spawnProcess } from '../../harness/fault-stack';
import { startTestCluster, type TestCluster } from '../../harness/temporal-cluster';
import { clusterServices } from '../../harness/temporal-cluster-launcher';
import { payloadCodecFromConfig } from '../../infra/payload-codec';
import { connectTemporalClient } from '../../infra/temporal-connection';
import { freePort } from '../../infra/temporal-dev-server';

/**
 * docs/operations.md (Backups), once for real: a deployment with a finished conversation is dumped
 * (our database and the Temporal cluster's two, with pg_dump), wiped (all three dropped), restored
 * (pg_restore) and started again with the same keys; the conversation continues where it was, and
 * the restored Temporal history of its first turn still decodes under PAYLOAD_KEY.
 */
describe('backup and restore: dump, wipe, restore, the conversation continues', function () {
  this.timeout(300_000);
  let database: FreshDatabase;
  let cluster: TestCluster;
  let db: Db | undefined;
  let dumps: string;
  const procs: Proc[] = [];

  before(async () => {
    dumps = await mkdtemp(path.join(tmpdir(), 'ha-backup-'));
    database = await freshDatabase({ prefix: 'ha_backup', log: () => undefined });
    cluster = await startTestCluster({ serverUrl: database.url, log: () => undefined });
  });
  after(async () => {
    await Promise.all(procs.map((p) => kill(p, 'SIGTERM')));
    await db?.destroy();
    await cluster?.close();
    await database?.drop();
    await rm(dumps, { recursive: true, force: true });
  });

  /** pg_dump and pg_restore must be at least the server's major version: say so plainly if not. */
  async function pgTools(url: string): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const server = Number((await client.query<{ server_version_num: string }>('show server_version_num')).rows[0]!.server_version_num) / 10000;
    await client.end();
    const tool = Number(/(\d+)/.exec(execFileSync('pg_dump', ['--version'], { encoding: 'utf8' }).replace(/^\D+/, ''))?.[1]);
    assert.ok(
      tool >= Math.floor(server),
      `pg_dump ${tool} cannot dump a PostgreSQL ${Math.floor(server)} server: run this test with DATABASE_URL on a server pg_dump knows (.ci/run uses 127.0.0.1:5432)`,
    );
  }

  const urlOf = (name: string) => {
    const u = new URL(database.url);
    u.pathname = `/${name}`;
    return u.toString();
  };

  it('every message and the first turn’s workflow are back, and the next turn answers', async () => {
    const ourDb = new URL(database.url).pathname.slice(1);
    const names = [ourDb, ...cluster.databases];
    await pgTools(database.url);

    db = createDb({ url: database.url, poolMax: 4 });
    await migrateLatest(db);
    const repos = createRepositories(db);
    const workspaceId = (await repos.workspaces.create({ name: 'backed up', credits: 100 })).id;
    const apiKey = (await repos.apiKeys.create({ workspaceId })).apiKey;
    await db.destroy();
    db = undefined;
    const port = await freePort();
    const env = processEnv({ databaseUrl: database.url, temporalAddress: cluster.address, apiPort: port, extra: { TEMPORAL_TASK_QUEUE_PREFIX: `b${randomToken(6)}-` } });
    const startProcesses = async () => {
      const started = await Promise.allSettled([spawnProcess('api', env, 'API listening'), spawnProcess('worker', env, 'worker polling')]);
      for (const s of started) if (s.status === 'fulfilled') procs.push(s.value);
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    };
    const stopProcesses = async () => {
      await Promise.all(procs.splice(0).map((p) => kill(p, 'SIGTERM')));
    };
    const finish = async (events: AsyncIterable<TurnEvent>) => {
      const seen: TurnEvent[] = [];
      for await (const e of events) seen.push(e);
      const start = seen.find((e) => e.type === 'start');
      const done = seen.find((e) => e.type === 'done');
      assert.ok(done?.type === 'done' && start?.type === 'start', JSON.stringify(seen.at(-1)));
      return { turnId: start.turnId, reply: done.reply };
    };

    await startProcesses();
    const ws = new Service({ apiKey, baseURL: `http://127.0.0.1:${port}` });
    const agent = await ws.agents.create({ name: 'Archivist' });
    const conversation = await agent.start();
    const word = `marmalade-${randomToken(6)}`;
    const first = await finish(conversation.ask(`remember ${word}`));

    // Dump: everything stopped, so the three dumps are of one moment.
    await stopProcesses();
    await cluster.stop();
    for (const name of names) execFileSync('pg_dump', ['-Fc', '-f', path.join(dumps, `${name}.dump`), urlOf(name)]);

    // Wipe.
    const admin = new pg.Client({ connectionString: urlOf('postgres') });
    await admin.connect();
    try {
      for (const name of names) await admin.query(`drop database ${name} with (force)`);
      // Restore.
      for (const name of names) await admin.query(`create database ${name}`);
    } finally {
      await admin.end();
    }
    for (const name of names) execFileSync('pg_restore', ['--no-owner', '-d', urlOf(name), path.join(dumps, `${name}.dump`)]);

    await cluster.startServices(...clusterServices);
    await startProcesses();
    const again = ws.conversation(conversation.id);
    const before = await again.messages();
    assert.deepEqual(before.map((m) => m.role), ['user', 'assistant']);
    assert.equal(before[1]!.content, first.reply);
    const second = await finish(again.ask('what did I ask you to remember?'));
    assert.notEqual(second.turnId, first.turnId);
    assert.equal((await again.messages()).length, 4);

    // Temporal's history came back too; describing the run decodes its memo under the same PAYLOAD_KEY.
    const temporal = await connectTemporalClient({ address: cluster.address, namespace: cluster.namespace, tls: false, payloadCodec: payloadCodecFromConfig({ PAYLOAD_KEY: env.PAYLOAD_KEY }) });
    try {
      const described = await temporal.workflow.getHandle(`turn-${first.turnId}`).describe();
      assert.equal(described.status.name, 'COMPLETED');
      assert.ok((await temporal.workflow.getHandle(`turn-${first.turnId}`).fetchHistory()).events!.length > 5);
    } finally {
      await temporal.connection.close();
    }
  });
});
