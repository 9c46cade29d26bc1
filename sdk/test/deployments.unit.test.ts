import assert from 'node:assert/strict';
import {
  type AgentConversationRecord,
  type ProdDeployment,
  Service,
  ServiceError,
  type TestDeployment,
} from '../src';
import { failure, json, type Received, type TestServer, useSdkServer } from './support/test-server';

/** Publishing calls on `ws.agents` against a real local server: one request each, exactly the contract's routes. */

const testDeployment: TestDeployment = { url: 'http://k3j9x2.test.agents.localhost:8080', expiresAt: '2025-01-01T01:00:00.000Z' };
const prodDeployment: ProdDeployment = { url: 'http://support.agents.localhost:8080', versionNumber: 3 };

function only(server: TestServer): Received {
  assert.equal(server.received.length, 1, `expected one request, got ${server.received.map((r) => `${r.method} ${r.url}`).join(', ')}`);
  return server.received[0]!;
}

/** Method, path, JSON body (or none) and the headers every key-authenticated JSON call sends. */
function assertRequest(req: Received, method: string, url: string, body: unknown): void {
  assert.equal(`${req.method} ${req.url}`, `${method} ${url}`);
  assert.equal(req.headers.authorization, 'Bearer k');
  assert.equal(req.headers.accept, 'application/json');
  if (body === undefined) {
    assert.equal(req.body, '');
    assert.equal(req.headers['content-type'], undefined);
  } else {
    assert.equal(req.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(req.body), body);
  }
}

const serviceError = (code: string, message: string) => ({ error: { code, message, retryable: false } });

describe('SDK deployments: ws.agents publishing calls', () => {
  let server: TestServer;
  let ws: Service;
  useSdkServer((_req, res) => json(res, 200, {}), (srv, client) => {
    server = srv;
    ws = client;
  });

  describe('requests and answers', () => {
    it('deployToTest(versionId) sends POST /v1/deployments/test with { versionId } and resolves to { url, expiresAt }', async () => {
      server.respond((_req, res) => json(res, 200, testDeployment));
      const deployment: TestDeployment = await ws.agents.deployToTest('ver_2');
      assertRequest(only(server), 'POST', '/v1/deployments/test', { versionId: 'ver_2' });
      assert.deepEqual(deployment, testDeployment);
    });

    it('deployToProd(versionId) sends POST /v1/deployments/prod with { versionId } and resolves to { url, versionNumber }', async () => {
      server.respond((_req, res) => json(res, 200, prodDeployment));
      const deployment: ProdDeployment = await ws.agents.deployToProd('ver_3');
      assertRequest(only(server), 'POST', '/v1/deployments/prod', { versionId: 'ver_3' });
      assert.deepEqual(deployment, prodDeployment);
      assert.equal(typeof deployment.versionNumber, 'number');
    });

    it('rollback(agentId, versionId) sends POST /v1/agents/:agentId/rollback with { versionId } and resolves to undefined on 204', async () => {
      server.respond((_req, res) => res.writeHead(204).end());
      const result: void = await ws.agents.rollback('agt_1', 'ver_1');
      assert.equal(result, undefined);
      assertRequest(only(server), 'POST', '/v1/agents/agt_1/rollback', { versionId: 'ver_1' });
    });

    it('publicToken(agentId) sends GET /v1/agents/:agentId/public-token and resolves to the token string', async () => {
      server.respond((_req, res) => json(res, 200, { token: 'agt_pk_abc123' }));
      const token: string = await ws.agents.publicToken('agt_1');
      assert.equal(token, 'agt_pk_abc123');
      assertRequest(only(server), 'GET', '/v1/agents/agt_1/public-token', undefined);
    });

    it('rotatePublicToken(agentId) sends POST /v1/agents/:agentId/public-token/rotate with no body and resolves to the new token', async () => {
      server.respond((_req, res) => json(res, 200, { token: 'agt_pk_new456' }));
      const token: string = await ws.agents.rotatePublicToken('agt_1');
      assert.equal(token, 'agt_pk_new456');
      assertRequest(only(server), 'POST', '/v1/agents/agt_1/public-token/rotate', undefined);
    });

    it('agent ids are encoded as one path segment; version ids go in the body unchanged', async () => {
      server.respond((_req, res) => json(res, 200, { token: 'agt_pk_x' }));
      await ws.agents.publicToken('agt 1/x');
      await ws.agents.rotatePublicToken('a?b#c');
      server.respond((_req, res) => res.writeHead(204).end());
      await ws.agents.rollback('agt/1', 'ver 1/../x');
      assert.deepEqual(
        server.received.map((r) => `${r.method} ${r.url}`),
        ['GET /v1/agents/agt%201%2Fx/public-token', 'POST /v1/agents/a%3Fb%23c/public-token/rotate', 'POST /v1/agents/agt%2F1/rollback'],
      );
      assert.deepEqual(JSON.parse(server.received[2]!.body), { versionId: 'ver 1/../x' });
    });

    it("a caller's signal aborts a deploy", async () => {
      server.respond(() => undefined); // never answer
      const controller = new AbortController();
      const pending = ws.agents.deployToProd('ver_3', { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      assert.equal((await failure(pending)).code, 'aborted');
    });

    it('a deploy slower than the timeout option rejects with code timeout (retryable)', async () => {
      const quick = new Service({ apiKey: 'k', baseURL: server.baseURL, timeout: 50 });
      server.respond((_req, res) => setTimeout(() => json(res, 200, prodDeployment), 300));
      const err = await failure(quick.agents.deployToProd('ver_3'));
      assert.deepEqual([err.code, err.status, err.retryable], ['timeout', 0, true]);
    });
  });

  describe('failures', () => {
    it('409 deploy_check_failed rejects with its code, status and message', async () => {
      const message = 'the version failed its health check; production is unchanged: MCP server docs did not list its tools: timeout';
      server.respond((_req, res) => json(res, 409, serviceError('deploy_check_failed', message), { 'x-request-id': 'req_1' }));
      const err = await failure(ws.agents.deployToProd('ver_3'));
      assert.ok(err instanceof ServiceError);
      assert.deepEqual(
        { code: err.code, status: err.status, retryable: err.retryable, message: err.message, requestId: err.requestId },
        { code: 'deploy_check_failed', status: 409, retryable: false, message, requestId: 'req_1' },
      );
      assert.equal(server.received.length, 1, 'no retry');
    });

    it('409 agent_not_publishable and agent_not_deployed keep their codes', async () => {
      server.respond((_req, res) => json(res, 409, serviceError('agent_not_publishable', 'agent agt_1 is a teammate')));
      for (const call of [() => ws.agents.deployToTest('ver_1'), () => ws.agents.deployToProd('ver_1')]) {
        const err = await failure(call());
        assert.deepEqual([err.code, err.status, err.retryable], ['agent_not_publishable', 409, false]);
      }
      server.respond((_req, res) => json(res, 409, serviceError('agent_not_deployed', 'no production version')));
      for (const call of [() => ws.agents.rollback('agt_1', 'ver_1'), () => ws.agents.publicToken('agt_1'), () => ws.agents.rotatePublicToken('agt_1')]) {
        const err = await failure(call());
        assert.deepEqual([err.code, err.status, err.retryable], ['agent_not_deployed', 409, false]);
      }
    });

    it('404 version_not_found and agent_not_found reject with their codes', async () => {
      server.respond((_req, res) => json(res, 404, serviceError('version_not_found', 'no such version in this workspace')));
      for (const call of [() => ws.agents.deployToTest('ver_x'), () => ws.agents.deployToProd('ver_x'), () => ws.agents.rollback('agt_1', 'ver_x')]) {
        const err = await failure(call());
        assert.deepEqual([err.code, err.status, err.retryable, err.message], ['version_not_found', 404, false, 'no such version in this workspace']);
      }
      server.respond((_req, res) => json(res, 404, serviceError('agent_not_found', 'no such agent')));
      for (const call of [() => ws.agents.publicToken('agt_x'), () => ws.agents.rotatePublicToken('agt_x')]) {
        const err = await failure(call());
        assert.deepEqual([err.code, err.status, err.retryable], ['agent_not_found', 404, false]);
      }
    });

    it('a 404 without the service error body rejects with http_404', async () => {
      server.respond((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found'));
      const err = await failure(ws.agents.deployToTest('ver_1'));
      assert.deepEqual([err.code, err.status, err.retryable], ['http_404', 404, false]);
    });

    it('empty or missing ids are refused without a request', async () => {
      const refused = [
        () => ws.agents.deployToTest(''),
        () => ws.agents.deployToProd(''),
        () => ws.agents.deployToProd(undefined as unknown as string),
        () => ws.agents.rollback('agt_1', ''),
        () => ws.agents.rollback('', 'ver_1'),
        () => ws.agents.rollback('..', 'ver_1'),
        () => ws.agents.publicToken(''),
        () => ws.agents.rotatePublicToken('.'),
      ];
      for (const call of refused) {
        const err = await failure(call());
        assert.deepEqual([err.code, err.status, err.retryable], ['invalid_request', 400, false]);
      }
      assert.equal(server.received.length, 0);
    });

    it('a missing version id is refused with where to find one (agent.versionId, ws.agents.versions)', async () => {
      for (const call of [
        () => ws.agents.deployToTest(''),
        () => ws.agents.deployToProd(undefined as unknown as string),
        () => ws.agents.rollback('agt_1', ''),
      ]) {
        const err = await failure(call());
        assert.match(err.message, /agent\.versionId/);
        assert.match(err.message, /ws\.agents\.versions\(agentId\)/);
      }
      assert.equal(server.received.length, 0);
    });

    it('an answer of the wrong shape rejects with invalid_response', async () => {
      server.respond((_req, res) => json(res, 200, { url: 'x' }));
      assert.equal((await failure(ws.agents.publicToken('agt_1'))).code, 'invalid_response');
      assert.equal((await failure(ws.agents.rotatePublicToken('agt_1'))).code, 'invalid_response');
      server.respond((_req, res) => json(res, 200, { token: 42 }));
      assert.equal((await failure(ws.agents.publicToken('agt_1'))).code, 'invalid_response');
      server.respond((_req, res) => json(res, 200, ['agt_pk_x']));
      assert.equal((await failure(ws.agents.deployToTest('ver_1'))).code, 'invalid_response');
      server.respond((_req, res) => res.writeHead(204).end());
      assert.equal((await failure(ws.agents.deployToProd('ver_1'))).code, 'invalid_response');
    });
  });

  describe('conversation records from public chat', () => {
    it('carry endUser and channel through get()', async () => {
      const record: AgentConversationRecord = {
        id: 'cnv_1',
        agentId: 'agt_1',
        version: 3,
        startedAt: '2025-01-01T00:00:00.000Z',
        ready: true,
        requires: [],
        endUser: { id: 'visitor-1', name: 'Ada', email: 'ada@example.com', verified: false },
        channel: 'public',
      };
      server.respond((_req, res) => json(res, 200, record));
      const conversation = await ws.agent('agt_1').conversation('cnv_1').get();
      assert.deepEqual(conversation.endUser, { id: 'visitor-1', name: 'Ada', email: 'ada@example.com', verified: false });
      assert.equal(conversation.channel, 'public');
      assert.deepEqual(JSON.parse(JSON.stringify(conversation)), record);
    });
  });
});
