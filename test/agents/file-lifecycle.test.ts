import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { newSdkWorkspace, type SdkWorkspace } from '../support/sdk';
import { waitFor } from '../support/wait';
import { isolatedConfig, isolatedEnv, startInProcessWorker } from '../support/workers';

describe('Files and data lifecycle: signed files and deleted agents', function () {
  this.timeout(60_000);
  const api = useTestApi();
  let sdk: SdkWorkspace;
  before(async () => {
    sdk = await newSdkWorkspace(api);
  });

  it('an .html file a model wrote is served by its signed URL as a sandboxed attachment that leaks no referrer', async () => {
    const agent = await sdk.ws.agents.create({ name: 'Writer', filesystem: 'drive', tools: ['files.write'] });
    const conversation = await agent.start();
    const html = '<html><body><script>fetch("/v1/agents")</script><a href="https://example.com">x</a></body></html>';
    const reply = await conversation.ask(`/tool files_write ${JSON.stringify({ path: 'page.html', content: html })}`);
    assert.match(reply, /wrote \d+ bytes to page.html/);
    for (const download of [false, true]) {
      const served = await fetch(await conversation.fileUrl('page.html', { download }));
      assert.equal(served.status, 200);
      assert.equal(await served.text(), html);
      assert.match(served.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(served.headers.get('content-disposition') ?? '', /^attachment; filename="page.html"/, 'never shown in place');
      assert.match(served.headers.get('content-security-policy') ?? '', /^sandbox\b/);
      assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(served.headers.get('referrer-policy'), 'no-referrer');
    }
  });

  it("deleting an agent deletes its conversations' files, and their signed URLs stop working", async () => {
    const agent = await sdk.ws.agents.create({ name: 'Doomed' });
    const conversation = await agent.start();
    await conversation.writeFile('notes/secret.md', '# private');
    const url = await conversation.fileUrl('notes/secret.md', { ttl: 600 });
    assert.equal((await fetch(url)).status, 200);
    await agent.delete();
    assert.equal((await fetch(url)).status, 404, 'the link of a deleted agent answers 404');
    const left = await api.db('files').where({ space: `drive:${conversation.id}` }).count<Array<{ count: string }>>('* as count');
    assert.equal(Number(left[0]?.count), 0, 'no file of the drive is left behind');
  });
});

describe('Files and data lifecycle: the event log and probe rows are pruned by age', function () {
  this.timeout(60_000);
  const api = useTestApi();

  it("a worker prunes finished turns' events and probes older than their retention, and keeps the rest", async () => {
    const sdk = await newSdkWorkspace(api);
    const agent = await sdk.ws.agents.create({ name: 'Old timer' });
    const [oldConv, newConv] = [await agent.start(), await agent.start()];
    await oldConv.ask('long ago');
    await newConv.ask('just now');
    const turnOf = async (conversationId: string) => (await api.db('turns').where({ conversation_id: conversationId }).first<{ id: string }>('id')).id;
    const [oldTurn, newTurn] = [await turnOf(oldConv.id), await turnOf(newConv.id)];
    const typesOf = async (turnId: string) => (await api.db('turn_events').where({ turn_id: turnId }).orderBy('seq').select<Array<{ type: string }>>('type')).map((r) => r.type);
    const newTypes = await typesOf(newTurn);
    assert.ok(newTypes.includes('text'), 'a turn logs more than its start and end');
    await api.db('turns').where({ id: oldTurn }).update({ finished_at: api.db.raw("now() - interval '31 days'") });
    await api.db('probes').insert([
      { id: `prb_old_${oldTurn}`, workspace_id: sdk.workspaceId, task_queue: 'ops', worker_identity: 'w', created_at: api.db.raw("now() - interval '8 days'") },
      { id: `prb_new_${oldTurn}`, workspace_id: sdk.workspaceId, task_queue: 'ops', worker_identity: 'w' },
    ]);

    // A worker prunes when it starts (then every RETENTION_PRUNE_INTERVAL_SECONDS): defaults 30 and 7 days.
    const worker = await startInProcessWorker(isolatedConfig(isolatedEnv({})));
    try {
      await waitFor('the old turn pruned to its start and end', () => typesOf(oldTurn), (t) => t.join() === 'start,done', 15_000);
    } finally {
      await worker.stop();
    }
    assert.deepEqual(await typesOf(newTurn), newTypes, 'a recent turn keeps its whole log');
    const probes = (await api.db('probes').where('id', 'like', `%_${oldTurn}`).select<Array<{ id: string }>>('id')).map((r) => r.id);
    assert.deepEqual(probes, [`prb_new_${oldTurn}`]);
    // A replay of the pruned turn still starts and ends.
    const replay = await fetch(`${api.baseURL}/v1/turns/${oldTurn}/events`, { headers: { authorization: `Bearer ${sdk.apiKey}` } });
    assert.match(await replay.text(), /event: start[\s\S]*event: done/);
  });
});
