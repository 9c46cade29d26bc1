import assert from 'node:assert/strict';
import { type Agent, AgentHandle, type AgentRecord, Service, type Trigger, type VersionItem, type Workflow } from '../src';
import { failure, json, type Received, type TestServer, useSdkServer } from './support/test-server';

const record: AgentRecord = {
  id: 'agt_1',
  role: 'freelancer',
  name: 'Support',
  instructions: 'Be kind.',
  greeting: 'Hi!',
  grade: 'standard',
  filesystem: 'drive',
  tools: ['files.read', 'knowledge.search'],
  workflows: [{ name: 'Refund request', when: 'asks for a refund', content: '1. Check the order.' }],
  connections: [{ provider: 'gmail', scope: 'conversation', required: true }],
  secrets: [{ name: 'CRM_KEY', scope: 'fixed' }],
  parameters: [{ name: 'plan', type: 'choice', choices: ['free', 'pro'], default: 'free' }],
  triggers: [{ kind: 'chat' }, { kind: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Paris', message: 'Weekly report' }],
  mcpServers: [{ name: 'docs', url: 'https://mcp.example.com', transport: 'http' }],
  httpTools: [
    {
      name: 'lookup',
      description: 'Find an order',
      method: 'GET',
      url: 'https://api.example.com/orders/{id}',
      params: { id: { type: 'string', in: 'path' } },
      secrets: ['CRM_KEY'],
    },
  ],
  version: 1,
  versionId: 'ver_1',
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

const v2: AgentRecord = { ...record, version: 2, versionId: 'ver_2', name: 'Support v2', updatedAt: '2025-01-02T00:00:00.000Z' };

/** What the fake service saw: method and URL of each request. */
function calls(server: TestServer): string[] {
  return server.received.map((r) => `${r.method} ${r.url}`);
}

function only(server: TestServer): Received {
  assert.equal(server.received.length, 1, `expected one request, got ${calls(server).join(', ')}`);
  return server.received[0]!;
}

/** An object carrying the agent methods that serializes to exactly `expected`. */
function assertAgent(agent: Agent, expected: AgentRecord): void {
  assert.ok(agent instanceof AgentHandle);
  for (const method of ['update', 'get', 'versions', 'delete', 'setWorkflow', 'removeWorkflow', 'setTriggers'] as const) {
    assert.equal(typeof agent[method], 'function', method);
  }
  assert.equal(typeof agent.knowledge.put, 'function');
  assert.deepEqual(JSON.parse(JSON.stringify(agent)), expected);
  assert.deepEqual({ ...agent }, expected);
  assert.deepEqual(Object.keys(agent), Object.keys(expected));
}

describe('SDK agents: ws.agents, ws.agent(id) and returned agents', () => {
  let server: TestServer;
  let ws: Service;
  useSdkServer((_req, res) => json(res, 200, record), (srv, client) => {
    server = srv;
    ws = client;
  });

  describe('ws.agents', () => {
    it('create() sends POST /v1/agents with the fields as JSON and resolves to an Agent', async () => {
      server.respond((_req, res) => json(res, 201, record));
      const agent: Agent = await ws.agents.create({ name: 'Support', id: 'agt_support', role: 'freelancer', tools: ['plan'], greeting: 'Hi!' });
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'POST /v1/agents');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers.authorization, 'Bearer k');
      assert.deepEqual(JSON.parse(req.body), { name: 'Support', id: 'agt_support', role: 'freelancer', tools: ['plan'], greeting: 'Hi!' });
      assertAgent(agent, record);
      assert.equal(agent.id, 'agt_1');
      assert.equal(agent.workflows[0]?.name, 'Refund request');
    });

    it('the created agent carries methods: create(...).update(...) patches that agent', async () => {
      const agent = await ws.agents.create({ name: 'Support' });
      server.respond((_req, res) => json(res, 200, v2));
      const updated = await agent.update({ name: 'Support v2', greeting: null, tools: ['web.fetch'] });
      assert.deepEqual(calls(server), ['POST /v1/agents', 'PATCH /v1/agents/agt_1']);
      assert.deepEqual(JSON.parse(server.received[1]?.body ?? ''), { name: 'Support v2', greeting: null, tools: ['web.fetch'] });
      assertAgent(updated, v2);
      assert.equal(agent.version, 1, 'the agent update() was called on is not changed');
      assert.notEqual(updated, agent);
    });

    it("update({ role: 'freelancer' }) sends the role and resolves to the Agent at its new version, versionId included", async () => {
      const agent = await ws.agents.create({ name: 'Support' });
      const freelancer: AgentRecord = { ...v2, role: 'freelancer' };
      server.respond((_req, res) => json(res, 200, freelancer));
      const updated: Agent = await agent.update({ role: 'freelancer' });
      assert.deepEqual(JSON.parse(server.received[1]?.body ?? ''), { role: 'freelancer' });
      assertAgent(updated, freelancer);
      assert.equal(updated.versionId, 'ver_2', 'the version to deploy');
    });

    it('list() sends GET /v1/agents, unwraps { data } and gives each item methods', async () => {
      server.respond((_req, res) => json(res, 200, { data: [v2, record] }));
      const agents = await ws.agents.list();
      assert.deepEqual(calls(server), ['GET /v1/agents']);
      assert.equal(agents.length, 2);
      assertAgent(agents[0]!, v2);
      assertAgent(agents[1]!, record);
      assert.deepEqual(JSON.parse(JSON.stringify(agents)), [v2, record]);
    });

    it('list() of an empty workspace is []', async () => {
      server.respond((_req, res) => json(res, 200, { data: [] }));
      assert.deepEqual(await ws.agents.list(), []);
    });

    it('versions(agentId) sends GET /v1/agents/:agentId/deployments and resolves to plain VersionItems', async () => {
      const items: VersionItem[] = [
        { id: 'ver_2', number: 2, deployedAt: '2025-01-02T00:00:00.000Z', isProd: false },
        { id: 'ver_1', number: 1, deployedAt: '2025-01-01T00:00:00.000Z', isProd: true },
      ];
      server.respond((_req, res) => json(res, 200, { data: items }));
      assert.deepEqual(await ws.agents.versions('agt_1'), items);
      assert.deepEqual(calls(server), ['GET /v1/agents/agt_1/deployments']);
    });
  });

  describe('ws.agent(id): a handle', () => {
    it('is built without any request and serializes to its id', async () => {
      const handle = ws.agent('agt_1');
      assert.ok(handle instanceof AgentHandle);
      assert.equal(handle.id, 'agt_1');
      assert.equal(handle.knowledge, handle.knowledge);
      assert.deepEqual(JSON.parse(JSON.stringify(handle)), { id: 'agt_1' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(server.received.length, 0);
    });

    it('get() sends GET /v1/agents/:agentId; get({ version: 3 }) adds ?version=3', async () => {
      assertAgent(await ws.agent('agt_1').get(), record);
      await ws.agent('agt_1').get({ version: 3 });
      assert.deepEqual(calls(server), ['GET /v1/agents/agt_1', 'GET /v1/agents/agt_1?version=3']);
    });

    it('rebuilt from a stored id, it sends what the returned agent sends', async () => {
      const stored = JSON.parse(JSON.stringify(await ws.agents.create({ name: 'Support' }))) as AgentRecord;
      server.received.length = 0;
      const fromHandle = await ws.agent(stored.id).update({ instructions: 'x' });
      const fromAgent = await (await ws.agent(stored.id).get()).update({ instructions: 'x' });
      assert.deepEqual(calls(server), ['PATCH /v1/agents/agt_1', 'GET /v1/agents/agt_1', 'PATCH /v1/agents/agt_1']);
      assert.equal(server.received[0]?.body, server.received[2]?.body);
      assert.deepEqual({ ...fromHandle }, { ...fromAgent });
    });

    it('versions() sends GET /v1/agents/:agentId/versions and resolves to Agents', async () => {
      server.respond((_req, res) => json(res, 200, { data: [v2, record] }));
      const versions = await ws.agent('agt_1').versions();
      assert.deepEqual(calls(server), ['GET /v1/agents/agt_1/versions']);
      assert.deepEqual(
        versions.map((a) => a.version),
        [2, 1],
      );
      assertAgent(versions[1]!, record);
    });

    it('delete() sends DELETE /v1/agents/:agentId and resolves to undefined on 204', async () => {
      server.respond((_req, res) => res.writeHead(204).end());
      assert.equal(await ws.agent('agt_1').delete(), undefined);
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'DELETE /v1/agents/agt_1');
      assert.equal(req.body, '');
      assert.equal(req.headers['content-type'], undefined);
    });

    it('setWorkflow() sends PUT /v1/agents/:agentId/workflows with the workflow', async () => {
      const workflow: Workflow = { name: 'Late delivery', when: 'a parcel is late', content: 'Apologise.' };
      server.respond((_req, res) => json(res, 200, v2));
      assertAgent(await ws.agent('agt_1').setWorkflow(workflow), v2);
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'PUT /v1/agents/agt_1/workflows');
      assert.deepEqual(JSON.parse(req.body), workflow);
    });

    it('removeWorkflow(name) encodes the name as one path segment', async () => {
      const agent = ws.agent('agt_1');
      await agent.removeWorkflow('Refund request');
      await agent.removeWorkflow('a/b?c#d%');
      assert.deepEqual(calls(server), ['DELETE /v1/agents/agt_1/workflows/Refund%20request', 'DELETE /v1/agents/agt_1/workflows/a%2Fb%3Fc%23d%25']);
      assert.equal(server.received[0]?.body, '');
    });

    it('setTriggers() sends PUT /v1/agents/:agentId/triggers with { triggers }', async () => {
      const triggers: Trigger[] = [
        { kind: 'interval', seconds: 3600, maxRuns: 3, message: 'Check the inbox' },
        { kind: 'webhook', url: 'https://example.com/hook' },
      ];
      await ws.agent('agt_1').setTriggers(triggers);
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'PUT /v1/agents/agt_1/triggers');
      assert.deepEqual(JSON.parse(req.body), { triggers });
    });

    it('rotateWebhookUrl(id) sends POST …/webhooks/:webhookId/rotate-url and resolves to the Webhook', async () => {
      const hook = { id: 'whk_1', triggerIndex: 0, url: 'http://localhost/v1/hooks/wh_x', signingSecret: false, createdAt: '2025-01-01T00:00:00.000Z' };
      server.respond((_req, res) => json(res, 200, hook));
      assert.deepEqual(await ws.agent('agt_1').rotateWebhookUrl('whk_1'), hook);
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'POST /v1/agents/agt_1/webhooks/whk_1/rotate-url');
    });

    it('mintWebhookSigningSecret(id) sends POST …/webhooks/:webhookId/signing-secret and resolves to the secret', async () => {
      server.respond((_req, res) => json(res, 200, { secret: 'whsec_abc' }));
      assert.equal(await ws.agent('agt_1').mintWebhookSigningSecret('whk 1'), 'whsec_abc');
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'POST /v1/agents/agt_1/webhooks/whk%201/signing-secret');
    });

    it('ids are encoded as one path segment', async () => {
      await ws.agent('agt 1/x').get();
      assert.deepEqual(calls(server), ['GET /v1/agents/agt%201%2Fx']);
    });
  });

  describe('agent.knowledge', () => {
    const entry = { path: 'guides/refund policy.md', kind: 'file', mimeType: 'text/markdown', size: 6, modifiedAt: '2025-01-01T00:00:00.000Z' };

    it('put(path, string) sends PUT .../knowledge/<path> as UTF-8 octet-stream, segments encoded, and resolves to the entry', async () => {
      server.respond((_req, res) => json(res, 200, entry));
      assert.deepEqual(await ws.agent('agt_1').knowledge.put('guides/refund policy.md', 'héllo'), entry);
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'PUT /v1/agents/agt_1/knowledge/guides/refund%20policy.md');
      assert.equal(req.headers['content-type'], 'application/octet-stream');
      assert.deepEqual(req.bytes, Buffer.from('héllo', 'utf8'));
    });

    it('put() sends Uint8Array, ArrayBuffer, Blob and Buffer bytes unchanged', async () => {
      server.respond((_req, res) => json(res, 200, entry));
      const bytes = new Uint8Array([0, 1, 2, 254, 255]);
      const knowledge = ws.agent('agt_1').knowledge;
      await knowledge.put('a.bin', bytes);
      await knowledge.put('a.bin', bytes.slice().buffer);
      await knowledge.put('a.bin', new Blob([bytes], { type: 'image/png' }));
      await knowledge.put('a.bin', Buffer.concat([Buffer.from('xx'), Buffer.from(bytes)]).subarray(2));
      const shared = new Uint8Array(new SharedArrayBuffer(5));
      shared.set(bytes);
      await knowledge.put('a.bin', shared);
      assert.equal(server.received.length, 5);
      for (const req of server.received) {
        assert.deepEqual(req.bytes, Buffer.from(bytes));
        assert.equal(req.headers['content-type'], 'application/octet-stream');
      }
    });

    it('list() sends GET .../knowledge and list(dir) adds ?dir=, unwrapping { data }', async () => {
      server.respond((_req, res) => json(res, 200, { data: [entry] }));
      const knowledge = ws.agent('agt_1').knowledge;
      assert.deepEqual(await knowledge.list(), [entry]);
      assert.deepEqual(await knowledge.list('guides/old docs'), [entry]);
      assert.deepEqual(calls(server), ['GET /v1/agents/agt_1/knowledge', 'GET /v1/agents/agt_1/knowledge?dir=guides%2Fold+docs']);
      assert.equal(new URL(server.received[1]!.url, server.baseURL).searchParams.get('dir'), 'guides/old docs');
    });

    it('list({ recursive: true }) adds ?recursive=true, with or without a dir', async () => {
      server.respond((_req, res) => json(res, 200, { data: [entry] }));
      const knowledge = ws.agent('agt_1').knowledge;
      assert.deepEqual(await knowledge.list({ recursive: true }), [entry]);
      await knowledge.list({ dir: 'policies', recursive: true });
      await knowledge.list('policies', { signal: new AbortController().signal });
      assert.deepEqual(calls(server), [
        'GET /v1/agents/agt_1/knowledge?recursive=true',
        'GET /v1/agents/agt_1/knowledge?dir=policies&recursive=true',
        'GET /v1/agents/agt_1/knowledge?dir=policies',
      ]);
    });

    it('read(path) resolves to the raw bytes of the file', async () => {
      const bytes = Buffer.from([0xff, 0x00, 0x41, 0xc3]);
      server.respond((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes));
      const read = await ws.agent('agt_1').knowledge.read('img/ré sumé.bin');
      assert.ok(read instanceof Uint8Array);
      assert.deepEqual(Buffer.from(read), bytes);
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'GET /v1/agents/agt_1/knowledge/img/r%C3%A9%20sum%C3%A9.bin');
      assert.equal(req.headers.accept, '*/*');
      assert.equal(req.headers.authorization, 'Bearer k');
    });

    it('remove(path) sends DELETE .../knowledge/<path> and resolves to undefined on 204', async () => {
      server.respond((_req, res) => res.writeHead(204).end());
      assert.equal(await ws.agent('agt_1').knowledge.remove('a b/c#d.md'), undefined);
      assert.deepEqual(calls(server), ['DELETE /v1/agents/agt_1/knowledge/a%20b/c%23d.md']);
    });

    it('returned agents have a working knowledge too', async () => {
      const agent = await ws.agents.create({ name: 'Support' });
      server.respond((_req, res) => json(res, 200, { data: [] }));
      await agent.knowledge.list();
      assert.deepEqual(calls(server), ['POST /v1/agents', 'GET /v1/agents/agt_1/knowledge']);
    });
  });

  describe('agent.evals', () => {
    const stored = {
      id: 'refund-policy',
      messages: ['Can I return shoes after 40 days?'],
      parameters: {},
      checks: [{ kind: 'contains', text: '30 days', caseSensitive: false }],
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
    };

    it('put(caseId, definition) sends PUT .../evals/:caseId with the definition as JSON and resolves to the stored case', async () => {
      server.respond((_req, res) => json(res, 200, stored));
      const definition = { messages: ['Can I return shoes after 40 days?'], checks: [{ kind: 'contains' as const, text: '30 days' }] };
      assert.deepEqual(await ws.agent('agt_1').evals.put('refund-policy', definition), stored);
      const req = only(server);
      assert.equal(`${req.method} ${req.url}`, 'PUT /v1/agents/agt_1/evals/refund-policy');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(req.body), definition);
    });

    it('list() sends GET .../evals and unwraps { data }; remove(caseId) sends DELETE and resolves to undefined', async () => {
      server.respond((_req, res) => json(res, 200, { data: [stored] }));
      const handle = ws.agent('agt_1');
      assert.equal(handle.evals, handle.evals, 'built once per handle');
      const evals = handle.evals;
      assert.deepEqual(await evals.list(), [stored]);
      server.respond((_req, res) => res.writeHead(204).end());
      assert.equal(await evals.remove('refund-policy'), undefined);
      assert.deepEqual(calls(server), ['GET /v1/agents/agt_1/evals', 'DELETE /v1/agents/agt_1/evals/refund-policy']);
    });

    it('a case id of "..", or empty, rejects with invalid_request before anything is sent', async () => {
      const evals = ws.agent('agt_1').evals;
      for (const id of ['', '.', '..']) {
        await assert.rejects(evals.remove(id), (e: unknown) => e instanceof Error && 'code' in e && e.code === 'invalid_request');
      }
      assert.equal(server.received.length, 0);
    });
  });

  describe('failures', () => {
    it('a service error rejects with its ServiceError', async () => {
      server.respond((_req, res) => json(res, 404, { error: { code: 'agent_not_found', message: 'no agent agt_x', retryable: false } }));
      const agent = ws.agent('agt_x');
      for (const call of [agent.get(), agent.update({ name: 'n' }), agent.delete(), agent.knowledge.read('a.md'), ws.agents.list()]) {
        const err = await failure(call);
        assert.deepEqual([err.code, err.status, err.retryable], ['agent_not_found', 404, false]);
      }
    });

    it('a 400 carries the service code and message', async () => {
      server.respond((_req, res) => json(res, 400, { error: { code: 'invalid_request', message: 'body.tools[0]: unknown tool', retryable: false } }));
      const err = await failure(ws.agents.create({ name: 'x' }));
      assert.deepEqual([err.code, err.status, err.message], ['invalid_request', 400, 'body.tools[0]: unknown tool']);
    });

    it('ids, names and paths that a URL would resolve away are refused without a request', async () => {
      const refused = [
        ws.agent('').get(),
        ws.agent('..').delete(),
        ws.agent('agt_1').removeWorkflow('..'),
        ws.agent('agt_1').removeWorkflow(''),
        ws.agents.versions('.'),
        ws.agent('agt_1').knowledge.read(''),
        ws.agent('agt_1').knowledge.remove('../x'),
        ws.agent('agt_1').knowledge.put('a/./b', 'x'),
        ws.agent('agt_1').knowledge.read('/'),
      ];
      for (const call of refused) {
        const err = await failure(call);
        assert.deepEqual([err.code, err.status, err.retryable], ['invalid_request', 400, false]);
      }
      assert.equal(server.received.length, 0);
    });

    it('an answer of the wrong shape rejects with invalid_response', async () => {
      server.respond((_req, res) => json(res, 200, [record]));
      assert.equal((await failure(ws.agents.list())).code, 'invalid_response');
      assert.equal((await failure(ws.agent('agt_1').get())).code, 'invalid_response');
      server.respond((_req, res) => res.writeHead(204).end());
      assert.equal((await failure(ws.agents.create({ name: 'x' }))).code, 'invalid_response');
    });

    it("a caller's signal aborts the call", async () => {
      server.respond(() => undefined); // never answer
      const controller = new AbortController();
      const pending = ws.agent('agt_1').setTriggers([], { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      assert.equal((await failure(pending)).code, 'aborted');
    });
  });
});
