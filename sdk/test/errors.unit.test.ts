import assert from 'node:assert/strict';
import { Service } from '../src';
import { closedPort, failure, json, startTestServer, type TestServer } from './support/test-server';

describe('SDK errors: every failure is a ServiceError', () => {
  let server: TestServer;
  let ws: Service;
  before(async () => {
    server = await startTestServer();
    ws = new Service({ apiKey: 'sk_test', baseURL: server.baseURL });
  });
  after(() => server.close());

  it('a 404 JSON error body gives its code and message, status 404, not retryable, and the request id', async () => {
    server.respond((_req, res) =>
      json(res, 404, { error: { code: 'agent_not_found', message: 'no agent agt_1', retryable: false } }, { 'x-request-id': 'req_abc' }),
    );
    const err = await failure(ws.get());
    assert.equal(err.name, 'ServiceError');
    assert.ok(err instanceof Error);
    assert.equal(err.code, 'agent_not_found');
    assert.equal(err.message, 'no agent agt_1');
    assert.equal(err.status, 404);
    assert.equal(err.retryable, false);
    assert.equal(err.retryAfter, undefined);
    assert.equal(err.requestId, 'req_abc');
  });

  it('a 429 with a Retry-After header is retryable and carries retryAfter in seconds', async () => {
    server.respond((_req, res) =>
      json(res, 429, { error: { code: 'rate_limited', message: 'slow down', retryable: true } }, { 'retry-after': '7' }),
    );
    const err = await failure(ws.get());
    assert.equal(err.code, 'rate_limited');
    assert.equal(err.status, 429);
    assert.equal(err.retryable, true);
    assert.equal(err.retryAfter, 7);
  });

  it("a 429 body's error.retryAfter is preferred to the rounded header", async () => {
    server.respond((_req, res) =>
      json(res, 429, { error: { code: 'rate_limited', message: 'slow down', retryable: true, retryAfter: 2.5 } }, { 'retry-after': '3' }),
    );
    assert.equal((await failure(ws.get())).retryAfter, 2.5);
  });

  it('a 500 is retryable', async () => {
    server.respond((_req, res) => json(res, 500, { error: { code: 'internal_error', message: 'boom', retryable: true } }));
    const err = await failure(ws.get());
    assert.deepEqual([err.code, err.status, err.retryable], ['internal_error', 500, true]);
  });

  it('a 400 is not retryable', async () => {
    server.respond((_req, res) => json(res, 400, { error: { code: 'invalid_request', message: 'body.name: required', retryable: false } }));
    const err = await failure(ws.get());
    assert.deepEqual([err.code, err.status, err.retryable, err.message], ['invalid_request', 400, false, 'body.name: required']);
  });

  it('a non-JSON 502 (a proxy page) gives code http_502, status 502, retryable', async () => {
    server.respond((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>'));
    const err = await failure(ws.get());
    assert.equal(err.code, 'http_502');
    assert.equal(err.status, 502);
    assert.equal(err.retryable, true);
    assert.match(err.message, /502/);
  });

  it('JSON without the error shape still gives code http_<status>', async () => {
    server.respond((_req, res) => json(res, 409, { detail: 'taken' }));
    const err = await failure(ws.get());
    assert.deepEqual([err.code, err.status, err.retryable], ['http_409', 409, false]);
  });

  it('a refused connection gives code connection_error, status 0, retryable', async () => {
    const offline = new Service({ apiKey: 'sk_test', baseURL: `http://127.0.0.1:${await closedPort()}` });
    const err = await failure(offline.get());
    assert.equal(err.code, 'connection_error');
    assert.equal(err.status, 0);
    assert.equal(err.retryable, true);
  });

  it('a missing API key fails with missing_api_key (401) and sends nothing', async () => {
    const saved = process.env.SERVICE_API_KEY;
    delete process.env.SERVICE_API_KEY;
    try {
      const before = server.received.length;
      const err = await failure(new Service({ baseURL: server.baseURL }).get());
      assert.deepEqual([err.code, err.status, err.retryable], ['missing_api_key', 401, false]);
      assert.equal(server.received.length, before);
    } finally {
      if (saved !== undefined) process.env.SERVICE_API_KEY = saved;
    }
  });
});
