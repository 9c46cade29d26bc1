import assert from 'node:assert/strict';
import {
  type Agent,
  type AgentRecord,
  type ConnectionInput,
  type ConnectionStatus,
  Service,
} from '../src';
import { failure, json, type TestServer, useSdkServer } from './support/test-server';

/** SDK credentials: bind/attach (both spec variants), connections, disconnect, authorize — the exact requests. */

const statuses: ConnectionStatus[] = [
  { provider: 'gmail', declared: true, required: true, scope: 'fixed', connected: true, suppliedBy: 'agent', accountLabel: 'ada@example.com' },
  { provider: 'slack', declared: true, required: false, scope: 'conversation', connected: false },
];

const gmail: ConnectionInput = { provider: 'gmail', accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: '2030-01-01T00:00:00.000Z', accountLabel: 'ada@example.com' };
const slack: ConnectionInput = { provider: 'slack', accessToken: 'at-2' };

const agentRecord: AgentRecord = {
  id: 'agt_1',
  role: 'teammate',
  name: 'Mailer',
  instructions: '',
  grade: 'standard',
  filesystem: 'none',
  tools: [],
  workflows: [],
  connections: [{ provider: 'gmail', scope: 'fixed', required: true }],
  secrets: [{ name: 'API_TOKEN', scope: 'fixed' }],
  parameters: [],
  triggers: [],
  mcpServers: [],
  httpTools: [],
  version: 1,
  versionId: 'ver_1',
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

function calls(server: TestServer): string[] {
  return server.received.map((r) => `${r.method} ${r.url}`);
}

function bodies(server: TestServer): unknown[] {
  return server.received.map((r) => (r.body === '' ? undefined : JSON.parse(r.body)));
}

const noContent: Parameters<TestServer['respond']>[0] = (_req, res) => res.writeHead(204).end();

describe('SDK credentials: bind, attach, connections, disconnect, authorize', () => {
  let server: TestServer;
  let ws: Service;
  useSdkServer(noContent, (srv, client) => {
    server = srv;
    ws = client;
  });

  const owners = [
    { what: 'agent', handle: () => ws.agent('agt_1'), base: '/v1/agents/agt_1' },
    { what: 'conversation', handle: () => ws.conversation('cnv_1'), base: '/v1/conversations/cnv_1' },
  ] as const;

  for (const { what, handle, base } of owners) {
    describe(`${what}.bind / ${what}.attach`, () => {
      it(`bind({ secrets, connections }) sends one PUT ${base}/credentials with exactly those fields and resolves to undefined`, async () => {
        const result = await handle().bind({ secrets: { API_TOKEN: 's3cret' }, connections: [gmail, slack] });
        assert.equal(result, undefined);
        assert.deepEqual(calls(server), [`PUT ${base}/credentials`]);
        assert.equal(server.received[0]!.headers['content-type'], 'application/json');
        assert.equal(server.received[0]!.headers.authorization, 'Bearer k');
        assert.deepEqual(bodies(server), [{ secrets: { API_TOKEN: 's3cret' }, connections: [gmail, slack] }]);
      });

      it('bind sends only the fields given', async () => {
        await handle().bind({ secrets: { A: '1' } });
        await handle().bind({ connections: [slack] });
        await handle().bind({});
        assert.deepEqual(bodies(server), [{ secrets: { A: '1' } }, { connections: [slack] }, {}]);
      });

      it('attach(connection), attach([…]) and attach({ secrets }) each send one PUT of the bind body', async () => {
        await handle().attach(gmail);
        await handle().attach([gmail, slack]);
        await handle().attach({ secrets: { API_TOKEN: 'x' } });
        await handle().attach({});
        assert.deepEqual(calls(server), Array(4).fill(`PUT ${base}/credentials`));
        assert.deepEqual(bodies(server), [{ connections: [gmail] }, { connections: [gmail, slack] }, { secrets: { API_TOKEN: 'x' } }, {}]);
      });

      it('a Date expiresAt is sent as its ISO string', async () => {
        await handle().attach({ provider: 'gmail', accessToken: 't', expiresAt: new Date(Date.UTC(2031, 0, 2, 3, 4, 5)) });
        assert.deepEqual(bodies(server), [{ connections: [{ provider: 'gmail', accessToken: 't', expiresAt: '2031-01-02T03:04:05.000Z' }] }]);
      });

      it('attach of something that is neither a connection nor { secrets } is refused without a request', async () => {
        const bad = [
          handle().attach({ connections: [slack] } as unknown as ConnectionInput),
          handle().attach(null as unknown as ConnectionInput),
          handle().attach({ provider: 'gmail', accessToken: 't', expiresAt: new Date('nope') }),
        ];
        for (const call of bad) {
          const err = await failure(call);
          assert.deepEqual([err.code, err.status, err.retryable], ['invalid_request', 400, false]);
        }
        assert.equal(server.received.length, 0);
      });

      it("the service's 400 rejects with its code and message", async () => {
        const message = 'body.secrets.API_TOKEN: declared with scope conversation; supply it on a conversation';
        server.respond((_req, res) => json(res, 400, { error: { code: 'invalid_request', message, retryable: false } }));
        const err = await failure(handle().bind({ secrets: { API_TOKEN: 'x' } }));
        assert.deepEqual([err.code, err.status, err.message], ['invalid_request', 400, message]);
      });

      it(`connections() sends GET ${base}/connections and unwraps { data }`, async () => {
        server.respond((_req, res) => json(res, 200, { data: statuses }));
        assert.deepEqual(await handle().connections(), statuses);
        assert.deepEqual(calls(server), [`GET ${base}/connections`]);
      });

      it(`authorize(provider) sends POST ${base}/authorize with { provider }; the 400 oauth_not_configured rejects`, async () => {
        server.respond((_req, res) => json(res, 200, { url: 'https://auth.example.com/consent?x=1' }));
        assert.deepEqual(await handle().authorize('gmail'), { url: 'https://auth.example.com/consent?x=1' });
        server.respond((_req, res) =>
          json(res, 400, { error: { code: 'oauth_not_configured', message: 'no OAuth set-up; supply tokens with bind', retryable: false } }),
        );
        const err = await failure(handle().authorize('gmail'));
        assert.deepEqual([err.code, err.status, err.retryable], ['oauth_not_configured', 400, false]);
        assert.deepEqual(calls(server), [`POST ${base}/authorize`, `POST ${base}/authorize`]);
        assert.deepEqual(bodies(server), [{ provider: 'gmail' }, { provider: 'gmail' }]);
        server.respond((_req, res) => json(res, 200, {}));
        assert.equal((await failure(handle().authorize('gmail'))).code, 'invalid_response');
      });
    });
  }

  describe('agent.disconnect', () => {
    it('sends DELETE /v1/agents/:agentId/connections/:provider, the provider encoded as one segment', async () => {
      assert.equal(await ws.agent('agt_1').disconnect('gmail'), undefined);
      await ws.agent('agt_1').disconnect('my provider/x');
      assert.deepEqual(calls(server), ['DELETE /v1/agents/agt_1/connections/gmail', 'DELETE /v1/agents/agt_1/connections/my%20provider%2Fx']);
    });

    it('refuses a provider or id a URL would resolve away, without a request', async () => {
      for (const call of [
        ws.agent('agt_1').disconnect('..'),
        ws.agent('agt_1').disconnect('.'),
        ws.agent('agt_1').disconnect(''),
        ws.agent('..').bind({ secrets: { A: 'x' } }),
        ws.conversation('.').attach(slack),
        ws.agent('..').connections(),
        ws.conversation('..').authorize('gmail'),
      ]) {
        const err = await failure(call);
        assert.deepEqual([err.code, err.status], ['invalid_request', 400]);
      }
      assert.equal(server.received.length, 0);
    });
  });

  describe('returned agents', () => {
    it("bind, attach, disconnect and authorize work on an Agent; its `connections` is the record's list, statuses come from a handle", async () => {
      server.respond((_req, res) => json(res, 201, agentRecord));
      const agent: Agent = await ws.agents.create({ name: 'Mailer' });
      assert.deepEqual(agent.connections, agentRecord.connections, 'the record field wins');
      assert.deepEqual(JSON.parse(JSON.stringify(agent)), agentRecord);
      server.respond(noContent);
      await agent.bind({ secrets: { API_TOKEN: 'x' } });
      await agent.attach(gmail);
      await agent.disconnect('gmail');
      server.respond((_req, res) => json(res, 200, { data: statuses }));
      assert.deepEqual(await ws.agent(agent.id).connections(), statuses);
      assert.deepEqual(calls(server), [
        'POST /v1/agents',
        'PUT /v1/agents/agt_1/credentials',
        'PUT /v1/agents/agt_1/credentials',
        'DELETE /v1/agents/agt_1/connections/gmail',
        'GET /v1/agents/agt_1/connections',
      ]);
    });
  });

  it("a caller's signal aborts bind", async () => {
    server.respond(() => undefined);
    const controller = new AbortController();
    const pending = ws.agent('agt_1').bind({ secrets: { A: 'x' } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    assert.equal((await failure(pending)).code, 'aborted');
  });
});
