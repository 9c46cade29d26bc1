import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import { Service, type TurnEvent } from '../../sdk/src';
import { createDb, type Db } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { createRepositories } from '../../db/repositories';
import { randomToken } from '../../domain/ids';
import { freshDatabase, type FreshDatabase } from '../../harness/database';
import { kill, type Proc, processEnv, spawnProcess } from '../../harness/fault-stack';
import { freePort } from '../../infra/temporal-dev-server';
import { payloadCodecFromConfig } from '../../infra/payload-codec';
import { connectTemporalClient } from '../../infra/temporal-connection';
import type { ClusterHandle } from '../../harness/temporal-cluster-launcher';
import { startCaddy, type RunningCaddy } from '../support/caddy';
import { fixture } from '../support/fixture';
import { historyPayloads } from '../support/history';
import { waitFor } from '../support/wait';

/** Long enough (40 words at 120 ms) that a fault lands while the reply streams. */
const MESSAGE = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');

/**
 * The shape operators run (docs/temporal-cluster.md): a Temporal cluster of four service
 * processes with PostgreSQL persistence, two API and two worker processes of ours, and Caddy in
 * front terminating TLS with a locally made CA. Runs in the cluster pass (`npm run test:cluster`).
 */
describe('production shape: a Temporal cluster, two APIs and two workers behind Caddy over TLS', function () {
  this.timeout(300_000);
  let cluster: ClusterHandle;
  let database: FreshDatabase;
  let db: Db;
  let temporal: Client;
  let caddy: RunningCaddy;
  const procs: Proc[] = [];
  let ws: Service;
  let workspaceId: string;
  const codecToken = randomToken(40);

  before(async () => {
    const f = fixture();
    assert.ok(f.temporalCluster, 'this file runs against a cluster: TEST_TEMPORAL=cluster (npm run test:cluster)');
    cluster = f.temporalCluster;
    database = await freshDatabase({ prefix: 'ha_prod', log: () => undefined });
    db = createDb({ url: database.url, poolMax: 4 });
    await migrateLatest(db);
    const repos = createRepositories(db);
    workspaceId = (await repos.workspaces.create({ name: 'production shape', credits: 1000 })).id;
    const apiKey = (await repos.apiKeys.create({ workspaceId })).apiKey;
    const apiPorts = [await freePort(), await freePort()];
    const base = processEnv({
      databaseUrl: database.url,
      temporalAddress: cluster.address,
      apiPort: apiPorts[0]!,
      extra: {
        // Queues of their own: the run's in-process worker (another database) must not take these tasks.
        TEMPORAL_TASK_QUEUE_PREFIX: `p${randomToken(6)}-`,
        CODEC_TOKEN: codecToken,
        TRUST_PROXY: 'true',
        LOCAL_MODEL_DELAY_MS: '120',
        MODEL_HEARTBEAT_TIMEOUT_MS: '60000',
      },
    });
    // Settled one by one: a process that fails to start must not leave the others running.
    const started = await Promise.allSettled([
      ...apiPorts.map((port) => spawnProcess('api', { ...base, PORT: String(port) }, 'API listening')),
      spawnProcess('worker', base, 'worker polling'),
      spawnProcess('worker', base, 'worker polling'),
    ]);
    for (const s of started) if (s.status === 'fulfilled') procs.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    caddy = await startCaddy({ upstreams: apiPorts });
    ws = new Service({ apiKey, baseURL: caddy.url, fetch: caddy.fetch });
    // The workers' key: listing decodes each run's memo (fetchHistory below keeps payloads as stored).
    temporal = await connectTemporalClient({ address: cluster.address, namespace: cluster.namespace, tls: false, payloadCodec: payloadCodecFromConfig({ PAYLOAD_KEY: base.PAYLOAD_KEY }) });
  });

  after(async () => {
    await temporal?.connection.close();
    await caddy?.stop();
    await Promise.all(procs.map((p) => kill(p, 'SIGTERM')));
    await db?.destroy();
    await database?.drop();
  });

  async function ask(conversation: { ask(text: string): AsyncIterable<TurnEvent> }, text: string, onText?: () => void): Promise<{ turnId: string; events: TurnEvent[] }> {
    const events: TurnEvent[] = [];
    for await (const e of conversation.ask(text)) {
      events.push(e);
      if (e.type === 'text') onText?.();
    }
    const start = events.find((e) => e.type === 'start');
    return { turnId: start?.type === 'start' ? start.turnId : '', events };
  }

  async function assertEndedOnce(turnId: string, events: TurnEvent[]): Promise<string> {
    const terminal = events.filter((e) => e.type === 'done' || e.type === 'error');
    assert.equal(terminal.length, 1, `one terminal event for ${turnId}`);
    assert.equal(terminal[0]!.type, 'done', JSON.stringify(terminal[0]));
    const replies = await db('messages').where({ turn_id: turnId, role: 'assistant' });
    assert.equal(replies.length, 1, `one stored reply for ${turnId}`);
    assert.equal((await db('credit_debits').where({ turn_id: turnId })).length, 1, `one debit for ${turnId}`);
    return (terminal[0] as { reply: string }).reply;
  }

  it('turns stream over TLS through the proxy, and each run is found by WorkspaceId, AgentId, ConversationId and ProjectId', async () => {
    const writer = await ws.agents.create({ name: 'Writer' });
    const project = await ws.projects.create({ name: 'Shape', agents: [writer.id] });
    const agentConversation = await writer.start();
    const projectConversation = await project.start();
    const [agentTurn, projectTurn] = await Promise.all([ask(agentConversation, 'hello over TLS'), ask(projectConversation, 'hello, team')]);
    await assertEndedOnce(agentTurn.turnId, agentTurn.events);
    await assertEndedOnce(projectTurn.turnId, projectTurn.events);

    // SQL visibility on the cluster (the dev server keeps it in SQLite): each attribute finds its runs.
    const count = async (query: string) => (await temporal.workflow.count(query)).count;
    const queries = {
      workspace: `WorkspaceId = "${workspaceId}"`,
      agent: `AgentId = "${writer.id}" AND ConversationId = "${agentConversation.id}"`,
      project: `ProjectId = "${project.id}"`,
    };
    const seen = await waitFor('runs listed by our search attributes', async () => ({
      workspace: await count(queries.workspace),
      agent: await count(queries.agent),
      project: await count(queries.project),
    }), (c) => c.workspace >= 2 && c.agent === 1 && c.project >= 1, 30_000);
    assert.equal(seen.agent, 1);
    const listed: string[] = [];
    for await (const run of temporal.workflow.list({ query: queries.agent })) listed.push(run.workflowId);
    assert.deepEqual(listed, [`turn-${agentTurn.turnId}`]);
  });

  it('the codec endpoint, reached through the proxy, decodes a turn’s input from the cluster’s history', async () => {
    const agent = await ws.agents.create({ name: 'Codec' });
    const conversation = await agent.start();
    const secretWords = `decode me ${randomToken(8)}`;
    const turn = await ask(conversation, secretWords);
    await assertEndedOnce(turn.turnId, turn.events);
    const payloads = await historyPayloads(temporal, `turn-${turn.turnId}`);
    const raw = payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('\n');
    assert.ok(!raw.includes(secretWords), 'the history the cluster keeps is encrypted');
    const res = await caddy.fetch(`${caddy.url}/v1/codec/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${codecToken}` },
      body: JSON.stringify({ payloads }),
    });
    assert.equal(res.status, 200);
    const decoded = (await res.json()) as { payloads: Array<{ data: string }> };
    assert.ok(decoded.payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('\n').includes(secretWords));
  });

  it('SIGKILL of the history service mid-turn: once it is back, every turn ends once', async () => {
    const agent = await ws.agents.create({ name: 'Steady' });
    const conversations = await Promise.all([agent.start(), agent.start(), agent.start()]);
    const streaming: Array<Promise<void>> = [];
    const finished = conversations.map((c) => {
      let shown!: () => void;
      streaming.push(new Promise<void>((resolve) => (shown = resolve)));
      return ask(c, MESSAGE, () => shown());
    });
    await Promise.all(streaming);
    const killedPid = cluster.process('history').pid;
    await cluster.killService('history', 'SIGKILL');
    // Down a few seconds, as a crashed pod is before its replacement is scheduled.
    await new Promise((r) => setTimeout(r, 3000));
    await cluster.startServices('history');
    assert.notEqual(cluster.process('history').pid, killedPid);
    const turns = await Promise.all(finished);
    for (const { turnId, events } of turns) {
      const reply = await assertEndedOnce(turnId, events);
      assert.match(reply, /w39/, `the whole reply for ${turnId}`);
    }
  });
});
