import assert from 'node:assert/strict';
import { randomToken } from '../../domain/ids';
import { call, type ErrorJson } from '../../harness/http';
import { Service } from '../../sdk/src';
import type { EndUserErasure, EndUserExport } from '../../sdk/src';
import { useTestApi } from '../support/api';
import { scanEveryColumn, waitErasureDone, waitTurnWorkflowsGone } from '../support/end-users';
import { freelancer, publicChat } from '../support/publishing';

/**
 * An end user's data on request (docs/security.md, "End users' data: export and erasure"): the
 * export holds everything stored about them and no secret value; after the erasure no column of
 * any table holds their id or their words, Temporal knows none of their turns, one receipt is in
 * the audit log, and another end user's data is untouched.
 */
describe("end users' data: export and erasure", function () {
  this.timeout(120_000);
  const api = useTestApi();
  const ada = `ada-${randomToken(10)}`;
  const bob = `bob-${randomToken(10)}`;
  // Words only Ada wrote (the offline model echoes them into its replies too).
  const adaSaid = [`Ada public ${randomToken(12)}`, `Ada again ${randomToken(12)}`, `Ada via API ${randomToken(12)}`];
  const bobSaid = `Bob public ${randomToken(12)}`;
  const fileText = `Ada's file ${randomToken(12)}`;
  const secretValue = `sekrit-${randomToken(16)}`;
  let apiKey: string;
  let ws: Service;
  let exported: EndUserExport;

  before(async () => {
    const created = await api.newWorkspace({ credits: 1000 });
    apiKey = created.apiKey;
    ws = new Service({ apiKey, baseURL: api.baseURL });
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Erasure Desk' });
    const [v1] = await agent.versionIds();
    assert.equal((await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } })).status, 200);
    const token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agent.agentId}/public-token`, { apiKey })).body.token;

    for (const text of adaSaid.slice(0, 2)) assert.equal((await publicChat(api.baseURL, token, text, { id: ada, name: 'Ada', email: 'ada@example.com' })).status, 200);
    assert.equal((await publicChat(api.baseURL, token, bobSaid, { id: bob })).status, 200);
    const conv = await ws.agent(agent.agentId).start({ endUser: { id: ada } });
    await conv.ask(adaSaid[2]!);
    await conv.writeFile('notes/ada.txt', fileText);
    await ws.endUser(ada).bind({ secrets: { ADA_TOKEN: secretValue } });
  });

  it("export: every conversation with its messages, turns and events, files as working links, secret names without values; owners only", async () => {
    exported = await ws.endUser(ada).export();
    assert.equal(exported.endUserId, ada);
    assert.equal(exported.conversations.length, 2);
    const userTexts = exported.conversations.flatMap((c) => c.messages.filter((m) => m.role === 'user').map((m) => m.content));
    assert.deepEqual(userTexts.sort(), [...adaSaid].sort());
    const turns = exported.conversations.flatMap((c) => c.turns);
    assert.equal(turns.length, 3);
    for (const t of turns) assert.ok(t.events.some((e) => e.event.type === 'done'), `turn ${t.id} has its events`);
    const files = exported.conversations.flatMap((c) => c.files);
    assert.deepEqual(files.map((f) => f.path), ['notes/ada.txt']);
    const served = await fetch(files[0]!.url);
    assert.equal(served.status, 200);
    assert.equal(await served.text(), fileText);
    assert.deepEqual(exported.secrets.map((s) => [s.name, s.scope]), [['ADA_TOKEN', 'endUser']]);
    assert.deepEqual(exported.feedback, []);
    assert.ok(!JSON.stringify(exported).includes(secretValue), 'no secret value in the export');
    assert.ok(!JSON.stringify(exported).includes(bobSaid), "no other end user's words");

    const builder = await api.repos.apiKeys.create({ workspaceId: (await ws.get()).id, role: 'builder' });
    for (const [method, path] of [['GET', `/v1/end-users/${ada}/export`], ['DELETE', `/v1/end-users/${ada}`]] as const) {
      const refused = await call<ErrorJson>(api.baseURL, method, path, { apiKey: builder.apiKey });
      assert.equal(refused.status, 403, `${method} ${path}`);
      assert.equal(refused.body.error.code, 'forbidden');
    }
  });

  it('erasure: a DELETE while one runs answers the same; once done no column holds the id or their words, no turn workflow is left, one receipt', async () => {
    const turnIds = exported.conversations.flatMap((c) => c.turns.map((t) => t.id));
    const [first, second] = await Promise.all([ws.endUser(ada).erase(), ws.endUser(ada).erase()]);
    assert.equal(first.status, 'running');
    assert.equal(second.id, first.id, 'a DELETE while the erasure runs answers the same erasure');
    const done = await waitErasureDone(api.baseURL, apiKey, first.id);
    assert.deepEqual(done.counts, {
      conversations: 2, messages: 6, turns: 3, turnEvents: done.counts.turnEvents, turnWorkflows: 3, files: 1, secrets: 1, connections: 0, oauthStates: 0, approvals: 0,
    });
    assert.ok(done.counts.turnEvents >= 6);

    assert.deepEqual(await scanEveryColumn(api.db, [ada, ...adaSaid, fileText]), []);
    assert.deepEqual(await waitTurnWorkflowsGone(api.temporal, turnIds), [], 'DescribeWorkflowExecution answers not found for each of their turns');

    const receipts = await api.db('audit_events').where({ action: 'endUserErased' }).whereRaw(`targets->>'erasureId' = ?`, [first.id]);
    assert.equal(receipts.length, 1);
    assert.equal(receipts[0].actor_kind, 'system');
    assert.deepEqual(receipts[0].detail.counts, done.counts);

    // Bob's conversation and words are untouched.
    const bobs = await ws.endUser(bob).export();
    assert.equal(bobs.conversations.length, 1);
    assert.deepEqual(bobs.conversations[0]!.messages.map((m) => m.role), ['user', 'assistant']);
    assert.equal(bobs.conversations[0]!.messages[0]!.content, bobSaid);
    assert.equal((await api.db('turns').where({ conversation_id: bobs.conversations[0]!.id })).length, 1);
  });

  it('a DELETE after it is done starts a new erasure that finds nothing; the export is empty; an unknown erasure is 404', async () => {
    const again: EndUserErasure = await ws.endUser(ada).erase();
    const done = await waitErasureDone(api.baseURL, apiKey, again.id);
    assert.ok(Object.values(done.counts).every((n) => n === 0), JSON.stringify(done.counts));
    const empty = await ws.endUser(ada).export();
    assert.deepEqual([empty.conversations, empty.secrets, empty.connections, empty.approvals], [[], [], [], []]);
    const missing = await call<ErrorJson>(api.baseURL, 'GET', '/v1/erasures/era_nosucherasure', { apiKey });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'erasure_not_found');
    // Erasures are not under /v1/end-users/: an end user may be called `erasures`.
    const named = await call<{ data: unknown[] }>(api.baseURL, 'GET', '/v1/end-users/erasures/conversations', { apiKey });
    assert.equal(named.status, 200);
    assert.deepEqual(named.body.data, []);
  });
});
