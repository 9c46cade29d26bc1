import assert from 'node:assert/strict';
import { Service } from '../src';
import { HttpClient } from '../src/http';
import { resolveOptions } from '../src/options';
import { readSSE } from '../src/sse';
import { clientGone, closedPort, failure, json, startTestServer, type TestServer, within } from './support/test-server';

const record = { id: 'ws_1', name: 'Acme', credits: 42, createdAt: '2025-01-01T00:00:00.000Z' };

describe('SDK transport: one call, one authenticated request', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  beforeEach(() => {
    server.received.length = 0;
  });
  after(() => server.close());

  it('ws.get() sends GET /v1/workspace with the bearer key and resolves to the record', async () => {
    server.respond((_req, res) => json(res, 200, record));
    const ws = new Service({ apiKey: 'sk_live_1', baseURL: server.baseURL });
    assert.deepEqual(await ws.get(), record);
    assert.equal(server.received.length, 1);
    const [req] = server.received;
    assert.equal(req?.method, 'GET');
    assert.equal(req?.url, '/v1/workspace');
    assert.equal(req?.headers.authorization, 'Bearer sk_live_1');
    assert.equal(req?.headers.accept, 'application/json');
  });

  it('each call is exactly one request: no caching of answers, no retry of failures', async () => {
    const ws = new Service({ apiKey: 'k', baseURL: server.baseURL });
    server.respond((_req, res) => json(res, 200, record));
    await ws.get();
    await ws.get();
    assert.equal(server.received.length, 2);
    server.respond((_req, res) => json(res, 503, { error: { code: 'database_unavailable', message: 'db down', retryable: true } }));
    await failure(ws.get());
    server.respond((_req, res) => json(res, 429, { error: { code: 'rate_limited', message: 'wait', retryable: true, retryAfter: 0 } }));
    await failure(ws.get());
    assert.equal(server.received.length, 4);
  });

  it('a request that outlives the timeout fails with code timeout and is aborted on the wire', async () => {
    let gone: Promise<boolean> | undefined;
    server.respond((_req, res) => {
      gone = clientGone(res); // never answer
    });
    const ws = new Service({ apiKey: 'k', baseURL: server.baseURL, timeout: 150 });
    const started = Date.now();
    const err = await failure(ws.get());
    assert.deepEqual([err.code, err.status, err.retryable], ['timeout', 0, true]);
    assert.ok(Date.now() - started < 2000, 'the timeout fired late');
    assert.ok(gone, 'the request never reached the server');
    assert.equal(await within(2000, gone, 'server-side close'), true);
  });

  it('the timeout also covers a body that stalls after the headers', async () => {
    server.respond((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
    const ws = new Service({ apiKey: 'k', baseURL: server.baseURL, timeout: 150 });
    assert.equal((await failure(ws.get())).code, 'timeout');
  });

  it("the caller's AbortSignal stops the request with code aborted, not retryable", async () => {
    server.respond(() => undefined); // never answer
    const ws = new Service({ apiKey: 'k', baseURL: server.baseURL });
    const controller = new AbortController();
    const pending = ws.get({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const err = await failure(pending);
    assert.deepEqual([err.code, err.status, err.retryable], ['aborted', 0, false]);
  });

  it('an injected fetch carries every request (custom transport and auth)', async () => {
    server.respond((_req, res) => json(res, 200, record));
    const seen: string[] = [];
    const customFetch: typeof fetch = (input, init) => {
      seen.push(String(input));
      const headers = new Headers(init?.headers);
      headers.set('x-tenant', 'blue');
      return fetch(input, { ...init, headers });
    };
    const ws = new Service({ apiKey: 'k', baseURL: server.baseURL, fetch: customFetch });
    await ws.get();
    assert.deepEqual(seen, [`${server.baseURL}/v1/workspace`]);
    assert.equal(server.received[0]?.headers['x-tenant'], 'blue');
  });

  it('an injected fetch is used instead of the network', async () => {
    const offline = `http://127.0.0.1:${await closedPort()}`;
    const stub: typeof fetch = async () => Response.json(record);
    assert.deepEqual(await new Service({ apiKey: 'k', baseURL: offline, fetch: stub }).get(), record);
  });

  it('sends JSON bodies and query strings, and resolves a 204 to undefined', async () => {
    server.respond((_req, res) => res.writeHead(204).end());
    const http = new HttpClient(resolveOptions({ apiKey: 'k', baseURL: server.baseURL }));
    const result = await http.request('POST', '/v1/things', { body: { name: 'x' }, query: { dir: 'a b', n: 2, skip: undefined } });
    assert.equal(result, undefined);
    const [req] = server.received;
    assert.equal(req?.url, '/v1/things?dir=a+b&n=2');
    assert.equal(req?.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(req?.body ?? ''), { name: 'x' });
  });

  it('a stream is exempt from the timeout and decodes as SSE', async () => {
    server.respond((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keepalive\n\n');
      setTimeout(() => res.end('id: 1\nevent: done\ndata: {"type":"done","reply":"hi"}\n\n'), 300);
    });
    const http = new HttpClient(resolveOptions({ apiKey: 'k', baseURL: server.baseURL, timeout: 100 }));
    const response = await http.stream('POST', '/v1/conversations/c1/turns', { body: { text: 'hi' } });
    assert.ok(response.body);
    const messages = [];
    for await (const message of readSSE(response.body)) messages.push(message);
    assert.deepEqual(messages, [{ id: '1', event: 'done', data: '{"type":"done","reply":"hi"}' }]);
    assert.equal(server.received[0]?.headers.accept, 'text/event-stream');
    assert.equal(server.received[0]?.headers.authorization, 'Bearer k');
  });

  it('a stream answered with an error status rejects with a ServiceError', async () => {
    server.respond((_req, res) => json(res, 404, { error: { code: 'conversation_not_found', message: 'gone', retryable: false } }));
    const http = new HttpClient(resolveOptions({ apiKey: 'k', baseURL: server.baseURL }));
    const err = await failure(http.stream('POST', '/v1/conversations/c1/turns'));
    assert.deepEqual([err.code, err.status], ['conversation_not_found', 404]);
  });
});
