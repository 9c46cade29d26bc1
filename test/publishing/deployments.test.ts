import assert from 'node:assert/strict';
import { createLogger } from '../../infra/logger';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../../harness/http';
import { freelancer, publicChat, siteRequest } from '../support/publishing';

type Prod = { url: string; versionNumber: number };
type Test = { url: string; expiresAt: string };

/** Deployments as an owner drives them: test URLs with a durable expiry, promotion, rollback, tokens. */
describe('deployments', () => {
  const TTL = 3;
  const api = useTestApi(() => ({
    config: { ...fixture().config, TEST_DEPLOYMENT_TTL: TTL, PUBLIC_CHAT_PER_ADDRESS: 10_000 },
    logger: createLogger('error'),
  }));
  let apiKey: string;

  before(async () => {
    ({ apiKey } = await api.newWorkspace({ credits: 1000 }));
  });

  const post = <T>(path: string, body?: unknown) => call<T>(api.baseURL, 'POST', path, { apiKey, ...(body ? { body } : {}) });
  const get = <T>(path: string) => call<T>(api.baseURL, 'GET', path, { apiKey });
  const port = () => new URL(api.baseURL).port;

  it('a teammate is refused on every deploy call, told how to fix it, and is published once made a freelancer', async () => {
    const created = await post<{ id: string; versionId: string }>('/v1/agents', { name: 'Internal' });
    const [version] = (await get<{ data: Array<{ id: string }> }>(`/v1/agents/${created.body.id}/deployments`)).body.data;
    assert.equal(created.body.versionId, version!.id, "the Agent record carries its version's id");
    for (const kind of ['test', 'prod']) {
      const r = await post<ErrorJson>(`/v1/deployments/${kind}`, { versionId: version!.id });
      assert.equal(r.status, 409, kind);
      assert.equal(r.body.error.code, 'agent_not_publishable');
      assert.equal(
        r.body.error.message,
        `agent ${created.body.id} is a teammate: only freelancers have test and prod URLs; make it one with PATCH /v1/agents/${created.body.id} {"role":"freelancer"} (SDK: agent.update({ role: 'freelancer' })), then deploy the version that returns`,
      );
    }
    assert.equal((await get<ErrorJson>(`/v1/agents/${created.body.id}/public-token`)).body.error.code, 'agent_not_deployed');
    const items = (await get<{ data: Array<{ isProd: boolean }> }>(`/v1/agents/${created.body.id}/deployments`)).body.data;
    assert.deepEqual(items.map((i) => i.isProd), [false]);

    // Following the message: the role changes in a new version, whose id the answer carries.
    const made = await call<{ role: string; version: number; versionId: string }>(api.baseURL, 'PATCH', `/v1/agents/${created.body.id}`, {
      apiKey,
      body: { role: 'freelancer' },
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.deepEqual([made.body.role, made.body.version], ['freelancer', 2]);
    const test = await post<Test>('/v1/deployments/test', { versionId: made.body.versionId });
    assert.equal(test.status, 200, JSON.stringify(test.body));
    assert.equal((await siteRequest(api.baseURL, test.body.url)).status, 200);
  });

  it('a refusal that wants a ver_… id says where to find one', async () => {
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Where' });
    for (const versionId of ['1', agent.agentId]) {
      const r = await post<ErrorJson>('/v1/deployments/prod', { versionId });
      assert.equal(r.status, 400, versionId);
      assert.match(r.body.error.message, /^body\.versionId: a version id \(ver_…\), not a version number or an agent id; .*agent\.versionId.*GET \/v1\/agents\/:agentId\/deployments/);
    }
    const missing = await post<ErrorJson>('/v1/deployments/test', { versionId: 'ver_nosuchversion' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'version_not_found');
    assert.match(missing.body.error.message, /^no version ver_nosuchversion in this workspace; .*agent\.versionId.*ws\.agents\.versions\(agentId\)/);
    const rollback = await post<ErrorJson>(`/v1/agents/${agent.agentId}/rollback`, { versionId: 'ver_nosuchversion' });
    assert.equal(rollback.body.error.code, 'version_not_found');
    assert.match(rollback.body.error.message, /agent\.versionId/);
  });

  it('a freelancer made a teammate stops being served everywhere, and made a freelancer again serves the same URLs and token', async () => {
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Turncoat' });
    const [v1] = await agent.versionIds();
    const prod = await post<Prod>('/v1/deployments/prod', { versionId: v1!.id });
    assert.equal(prod.status, 200, JSON.stringify(prod.body));
    const test = await post<Test>('/v1/deployments/test', { versionId: v1!.id });
    const token = (await get<{ token: string }>(`/v1/agents/${agent.agentId}/public-token`)).body.token;
    const served = async () => ({
      prod: (await siteRequest(api.baseURL, prod.body.url)).status,
      test: (await siteRequest(api.baseURL, test.body.url)).status,
      publicAgent: (await call(api.baseURL, 'GET', `/v1/public/agents/${agent.agentId}`)).status,
      embedPage: (await call(api.baseURL, 'GET', `/embed/${agent.agentId}`)).status,
      chat: (await publicChat(api.baseURL, token, 'hi', { id: 'visitor' })).status,
    });
    assert.deepEqual(await served(), { prod: 200, test: 200, publicAgent: 200, embedPage: 200, chat: 200 });

    const patch = (role: string) => call<{ role: string }>(api.baseURL, 'PATCH', `/v1/agents/${agent.agentId}`, { apiKey, body: { role } });
    assert.equal((await patch('teammate')).body.role, 'teammate');
    assert.deepEqual(await served(), { prod: 404, test: 404, publicAgent: 404, embedPage: 404, chat: 401 });
    const refused = await post<ErrorJson>('/v1/deployments/prod', { versionId: v1!.id });
    assert.equal(refused.body.error.code, 'agent_not_publishable', 'its versions are refused too, the older ones included');

    assert.equal((await patch('freelancer')).body.role, 'freelancer');
    assert.deepEqual(await served(), { prod: 200, test: 200, publicAgent: 200, embedPage: 200, chat: 200 });
    assert.equal((await get<{ token: string }>(`/v1/agents/${agent.agentId}/public-token`)).body.token, token, 'the token was kept');
    assert.deepEqual((await agent.versionIds()).map((i) => [i.number, i.isProd]), [[3, false], [2, false], [1, true]], 'production still serves version 1');
  });

  it('a test URL serves its version, answers the same while live, and stops at expiry by a durable timer', async () => {
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Test Drive' });
    const [v1] = await agent.versionIds();
    const first = await post<Test>('/v1/deployments/test', { versionId: v1!.id });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.match(first.body.url, new RegExp(`^http://[0-9a-z]{16}\\.test\\.agents\\.localhost:${port()}$`));
    const ttl = Date.parse(first.body.expiresAt) - Date.now();
    assert.ok(ttl > 0 && ttl <= TTL * 1000, `expires in ${ttl} ms`);
    const again = await post<Test>('/v1/deployments/test', { versionId: v1!.id });
    assert.deepEqual(again.body, first.body, 'repeating while live gives the same URL and expiry');

    const page = await siteRequest(api.baseURL, first.body.url);
    assert.equal(page.status, 200);
    assert.match(page.text, /<title>Test Drive<\/title>/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.doesNotMatch(page.text, /agt_pk_/, 'a test page carries no publishable token');

    // The test host authorises its own chat; the conversation is the owner's, on the test channel.
    const chat = await siteRequest(api.baseURL, first.body.url, {
      method: 'POST', path: '/v1/public/chat', body: { content: 'hello test', user: { id: 'owner-try' } },
    });
    assert.equal(chat.status, 200);
    assert.match(chat.text, /event: done/);
    const conversations = (await get<{ data: Array<{ channel?: string; version: number }> }>(`/v1/agents/${agent.agentId}/conversations`)).body.data;
    assert.deepEqual(conversations.map((c) => [c.channel, c.version]), [['test', 1]]);

    // Another host the API does not know, and key routes on a live test host, are 404.
    assert.equal((await siteRequest(api.baseURL, first.body.url, { path: '/v1/workspace', headers: { authorization: `Bearer ${apiKey}` } })).status, 404);

    await new Promise((r) => setTimeout(r, Date.parse(first.body.expiresAt) - Date.now() + 500));
    assert.equal((await siteRequest(api.baseURL, first.body.url)).status, 404, 'expired: 404');
    // The workflow's timer retires the row (not just the read-time check).
    const deadline = Date.now() + 15_000;
    let retired: Date | null = null;
    while (!retired && Date.now() < deadline) {
      retired = (await api.db('test_deployments').where({ version_id: v1!.id }).first('retired_at'))?.retired_at ?? null;
      if (!retired) await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(retired, 'the expiry workflow retired the deployment');
    const next = await post<Test>('/v1/deployments/test', { versionId: v1!.id });
    assert.notEqual(next.body.url, first.body.url, 'after expiry a new deploy gets a new URL');
  });

  it('prod: idempotent, one isProd, token minted once and kept across re-deploy and rollback, rotation refuses the old token', async () => {
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Ünïcode Shop!' });
    const [v1] = await agent.versionIds();
    assert.equal((await get<ErrorJson>(`/v1/agents/${agent.agentId}/public-token`)).body.error.code, 'agent_not_deployed');
    assert.equal((await post<ErrorJson>(`/v1/agents/${agent.agentId}/rollback`, { versionId: v1!.id })).body.error.code, 'agent_not_deployed');

    const first = await post<Prod>('/v1/deployments/prod', { versionId: v1!.id });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.url, `http://unicode-shop.agents.localhost:${port()}`);
    assert.equal(first.body.versionNumber, 1);
    const token = (await get<{ token: string }>(`/v1/agents/${agent.agentId}/public-token`)).body.token;
    assert.match(token, /^agt_pk_[0-9a-z]{32}$/);
    assert.deepEqual((await post<Prod>('/v1/deployments/prod', { versionId: v1!.id })).body, first.body, 'idempotent');

    await call(api.baseURL, 'PATCH', `/v1/agents/${agent.agentId}`, { apiKey, body: { greeting: 'Version two here' } });
    const v2 = (await agent.versionIds())[0]!;
    const second = await post<Prod>('/v1/deployments/prod', { versionId: v2.id });
    assert.deepEqual(second.body, { url: first.body.url, versionNumber: 2 });
    assert.deepEqual((await agent.versionIds()).map((i) => [i.number, i.isProd]), [[2, true], [1, false]]);
    assert.equal((await get<{ token: string }>(`/v1/agents/${agent.agentId}/public-token`)).body.token, token, 'kept across re-deploy');
    const greeting = async () => (await call<{ greeting: string }>(api.baseURL, 'GET', `/v1/public/agents/${agent.agentId}`)).body.greeting;
    assert.equal(await greeting(), 'Version two here');

    assert.equal((await post(`/v1/agents/${agent.agentId}/rollback`, { versionId: v1!.id })).status, 204);
    assert.equal((await post(`/v1/agents/${agent.agentId}/rollback`, { versionId: v1!.id })).status, 204, 'idempotent');
    assert.deepEqual((await agent.versionIds()).map((i) => [i.number, i.isProd]), [[2, false], [1, true]]);
    assert.equal(await greeting(), 'Hi! How can I help?', 'production serves version 1 again at once');
    assert.equal((await get<{ token: string }>(`/v1/agents/${agent.agentId}/public-token`)).body.token, token, 'kept across rollback');

    const other = await freelancer(api.baseURL, apiKey, { name: 'Other' });
    const [foreign] = await other.versionIds();
    const wrong = await post<ErrorJson>(`/v1/agents/${agent.agentId}/rollback`, { versionId: foreign!.id });
    assert.equal(wrong.status, 404);
    assert.equal(wrong.body.error.code, 'version_not_found');

    const rotated = (await post<{ token: string }>(`/v1/agents/${agent.agentId}/public-token/rotate`)).body.token;
    assert.notEqual(rotated, token);
    const refused = await publicChat(api.baseURL, token, 'hi', { id: 'visitor' });
    assert.equal(refused.status, 401);
    assert.equal((refused.errorBody as ErrorJson).error.code, 'invalid_public_token');
    const accepted = await publicChat(api.baseURL, rotated, 'hi', { id: 'visitor' });
    assert.equal(accepted.events.at(-1)?.event.type, 'done');
    const stored = await api.db('agents').where({ id: agent.agentId }).first('public_token_hash', 'public_token_sealed');
    assert.ok(!JSON.stringify(stored).includes(rotated.slice(7)), 'the database holds no token in clear');
  });

  it('a promotion that fails its check leaves production serving, and chats through it see no error', async () => {
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Careful' });
    const [v1] = await agent.versionIds();
    await post('/v1/deployments/prod', { versionId: v1!.id });
    const token = (await get<{ token: string }>(`/v1/agents/${agent.agentId}/public-token`)).body.token;
    await call(api.baseURL, 'PATCH', `/v1/agents/${agent.agentId}`, {
      apiKey,
      body: {
        secrets: [{ name: 'SHOP_KEY', scope: 'fixed', required: true }, { name: 'VISITOR_PIN', scope: 'conversation', required: true }],
        mcpServers: [{ name: 'catalog', url: 'http://127.0.0.1:9/mcp', timeoutMs: 2000 }],
      },
    });
    const v2 = (await agent.versionIds())[0]!;

    const chats = Promise.all([1, 2, 3].map((i) => publicChat(api.baseURL, token, `during ${i}`, { id: `during-${i}` })));
    const failed = await post<ErrorJson>('/v1/deployments/prod', { versionId: v2.id });
    assert.equal(failed.status, 409);
    assert.equal(failed.body.error.code, 'deploy_check_failed');
    assert.match(failed.body.error.message, /^the version failed its health check; production is unchanged: /);
    assert.match(failed.body.error.message, /secret SHOP_KEY/);
    assert.match(failed.body.error.message, /MCP server catalog/);
    assert.match(failed.body.error.message, /secret VISITOR_PIN has scope conversation/);
    for (const chat of await chats) assert.equal(chat.events.at(-1)?.event.type, 'done', JSON.stringify(chat.events.at(-1)));
    assert.deepEqual((await agent.versionIds()).map((i) => [i.number, i.isProd]), [[2, false], [1, true]]);
    const after = await publicChat(api.baseURL, token, 'after', { id: 'after' });
    assert.equal(after.events.at(-1)?.event.type, 'done');
  });

  it('a successful promotion switches while visitors keep chatting without an error', async () => {
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Smooth' });
    const [v1] = await agent.versionIds();
    await post('/v1/deployments/prod', { versionId: v1!.id });
    const token = (await get<{ token: string }>(`/v1/agents/${agent.agentId}/public-token`)).body.token;
    await call(api.baseURL, 'PATCH', `/v1/agents/${agent.agentId}`, { apiKey, body: { instructions: 'Be brief.' } });
    const v2 = (await agent.versionIds())[0]!;
    const visitor = { id: 'steady' };
    const turns: Array<Promise<{ events: Array<{ event: { type: string } }> }>> = [];
    let deployed = false;
    const deploy = post<Prod>('/v1/deployments/prod', { versionId: v2.id }).finally(() => (deployed = true));
    for (let i = 0; i < 20 && (!deployed || i < 2); i++) turns.push(publicChat(api.baseURL, token, `message ${i}`, visitor).then((t) => t));
    // One visitor asks in sequence (one turn at a time per conversation).
    const results = [];
    for (const t of turns) results.push(await t);
    assert.equal((await deploy).body.versionNumber, 2);
    const finals = results.map((r) => r.events.at(-1)?.event.type);
    assert.ok(finals.every((t) => t === 'done' || t === undefined), JSON.stringify(finals));
  });

  it('deploy workflows are findable in Temporal by AgentId', async () => {
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Visible' });
    const [v1] = await agent.versionIds();
    await post('/v1/deployments/prod', { versionId: v1!.id });
    await post('/v1/deployments/test', { versionId: v1!.id });
    const ids: string[] = [];
    const deadline = Date.now() + 10_000;
    while (ids.length < 2 && Date.now() < deadline) {
      ids.length = 0;
      for await (const w of api.temporal.workflow.list({ query: `AgentId = "${agent.agentId}"` })) ids.push(w.workflowId);
      if (ids.length < 2) await new Promise((r) => setTimeout(r, 300));
    }
    assert.deepEqual(ids.sort(), [`deploy-prod-${agent.agentId}-v1`, `deploy-test-${agent.agentId}-v1`]);
  });
  it("a deleted agent's slug is never given to another workspace; its own workspace gets it back", async () => {
    const name = `Tomb ${Math.random().toString(36).slice(2, 8)}`;
    const deployAs = async (key: string): Promise<{ agentId: string; url: string }> => {
      const agent = await freelancer(api.baseURL, key, { name, greeting: `Hello from ${key === apiKey ? 'the owner' : 'a stranger'}` });
      const [v1] = await agent.versionIds();
      const r = await call<Prod>(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey: key, body: { versionId: v1!.id } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return { agentId: agent.agentId, url: r.body.url };
    };
    const first = await deployAs(apiKey);
    assert.equal((await call(api.baseURL, 'DELETE', `/v1/agents/${first.agentId}`, { apiKey })).status, 204);

    // A stranger with the same name gets another host: links to the old one never reach its agent.
    const stranger = await api.newWorkspace();
    const theirs = await deployAs(stranger.apiKey);
    assert.notEqual(new URL(theirs.url).hostname, new URL(first.url).hostname);
    assert.equal(new URL(theirs.url).hostname, new URL(first.url).hostname.replace(/^([^.]+)/, '$1-2'));
    const old = await siteRequest(api.baseURL, first.url);
    assert.equal(old.status, 404);
    assert.doesNotMatch(old.text, /a stranger/);

    // The workspace that held it may use it again.
    const again = await deployAs(apiKey);
    assert.equal(again.url, first.url);
    assert.match((await siteRequest(api.baseURL, first.url)).text, /the owner/);
  });
});
