import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpToolSchema, type HttpTool } from '../../domain/agent-tools';
import { buildHttpRequest, runHttpTool } from '../../activities/tools/http-tool';
import { httpToolDefinition } from '../../activities/tools/http-tool-params';
import { createSafeFetch } from '../../activities/outbound/safe-fetch';
import { maskSecrets, substituteCredentials } from '../../activities/tools/substitute';
import type { Credentials } from '../../domain/credentials';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const credentials: Credentials = {
  secrets: { API_KEY: 'k-123/abc+=', TOKEN: 'tok_SUPERSECRET_42', SHORT: 'abc', UNLISTED: 'unlisted-value' },
  connections: { github: { accessToken: 'gho_accesstoken_9000', refreshToken: 'ghr_refresh_7777' } },
};

const tool = (spec: Record<string, unknown>): HttpTool => httpToolSchema.parse({ name: 'call_api', description: 'Calls the API.', ...spec });

describe('HTTP tools', () => {
  let server: http.Server;
  let base: string;
  const seen: Seen[] = [];
  const fetch = createSafeFetch({ allowPrivate: ['127.0.0.0/8'] });
  const signal = new AbortController().signal;
  const run = (t: HttpTool, args: Record<string, unknown>, creds: Credentials = credentials) => runHttpTool(t, args, { fetch, credentials: creds, signal });

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (path === '/slow') return; // never answers
        if (path === '/fail') {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"error":"boom"}');
          return;
        }
        if (path === '/echo') {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ url: req.url, authorization: req.headers.authorization, body }));
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  describe('definition', () => {
    it('names the tool and describes its params as a JSON schema', () => {
      const t = tool({
        name: 'get_user',
        method: 'GET',
        url: 'https://api.example.com/users/{id}',
        params: {
          id: { type: 'string', in: 'path', description: 'The user id.' },
          fields: { type: 'string', enum: ['name', 'email'] },
          limit: { type: 'integer', required: true },
          verbose: { type: 'boolean', in: 'header' },
        },
      });
      assert.deepEqual(httpToolDefinition(t), {
        name: 'get_user',
        description: 'Calls the API.',
        parameters: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'The user id.' },
            fields: { type: 'string', enum: ['name', 'email'] },
            limit: { type: 'integer' },
            verbose: { type: 'boolean' },
          },
          required: ['id', 'limit'],
          additionalProperties: false,
        },
      });
      assert.deepEqual(httpToolDefinition(tool({ method: 'POST', url: 'https://x.example/' })).parameters, {
        type: 'object',
        properties: {},
        required: [],
        additionalProperties: false,
      });
    });
  });

  describe('requests', () => {
    it('fills path (URL-encoded), query and header params', async () => {
      const t = tool({
        method: 'GET',
        url: `${base}/users/{id}/items?fixed=1`,
        headers: { Accept: 'application/json' },
        params: {
          id: { type: 'string', in: 'path' },
          q: { type: 'string' },
          limit: { type: 'integer' },
          unused: { type: 'string' },
          'X-Trace': { type: 'string', in: 'header' },
        },
      });
      const r = await run(t, { id: 'a/b c?', q: 'hello world&more', limit: 5, 'X-Trace': 'trace-1', unused: null });
      assert.deepEqual(r, { ok: true, content: 'HTTP 200 OK\ncontent-type: application/json\n\n{"ok":true}' });
      const req = seen.at(-1)!;
      assert.equal(req.method, 'GET');
      assert.equal(req.url, '/users/a%2Fb%20c%3F/items?fixed=1&q=hello%20world%26more&limit=5');
      assert.equal(req.headers['x-trace'], 'trace-1');
      assert.equal(req.headers.accept, 'application/json');
      assert.equal(req.body, '');
    });

    it('sends body params as a JSON object (in defaults to body for POST)', async () => {
      const t = tool({
        method: 'POST',
        url: `${base}/items`,
        params: { title: { type: 'string', required: true }, count: { type: 'number' }, draft: { type: 'boolean' }, page: { type: 'integer', in: 'query' } },
      });
      const r = await run(t, { title: 'New "item"', count: 2.5, draft: false, page: 3 });
      assert.equal(r.ok, true);
      const req = seen.at(-1)!;
      assert.equal(req.method, 'POST');
      assert.equal(req.url, '/items?page=3');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(req.body), { title: 'New "item"', count: 2.5, draft: false });
    });

    it('a body template takes {{args.NAME}}: escaped inside JSON strings, JSON values outside', async () => {
      const t = tool({
        method: 'PUT',
        url: `${base}/notes/{id}`,
        body: '{"text": "Note: {{args.text}}", "count": {{args.count}}, "pinned": {{args.pinned}}, "tag": {{args.tag}}, "key": "{{secrets.API_KEY}}"}',
        params: { id: { type: 'integer', in: 'path' }, text: { type: 'string' }, count: { type: 'integer' }, pinned: { type: 'boolean' }, tag: { type: 'string' } },
        secrets: ['API_KEY'],
      });
      const r = await run(t, { id: 7, text: 'say "hi"\nthen {{secrets.TOKEN}}', count: 3, pinned: true });
      assert.equal(r.ok, true);
      const req = seen.at(-1)!;
      assert.equal(req.method, 'PUT');
      assert.equal(req.url, '/notes/7');
      assert.equal(req.headers['content-type'], 'application/json');
      // The argument's own {{secrets.TOKEN}} stays literal text; an absent optional arg is null.
      assert.deepEqual(JSON.parse(req.body), { text: 'Note: say "hi"\nthen {{secrets.TOKEN}}', count: 3, pinned: true, tag: null, key: 'k-123/abc+=' });
    });

    it('a form-encoded body template URL-encodes; the tool content type wins', async () => {
      const t = tool({
        method: 'POST',
        url: `${base}/form`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'name={{args.name}}&token={{secrets.TOKEN}}',
        params: { name: { type: 'string' }, other: { type: 'string' } },
        secrets: ['TOKEN'],
      });
      await run(t, { name: 'a b&c', other: 'not sent' });
      const req = seen.at(-1)!;
      assert.equal(req.body, 'name=a%20b%26c&token=tok_SUPERSECRET_42');
      assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
    });

    it('substitutes secrets in the URL (URL-encoded), headers and body', async () => {
      const t = tool({
        method: 'POST',
        url: `${base}/echo?key={{secrets.API_KEY}}`,
        headers: { Authorization: 'Bearer {{ secrets.TOKEN }}' },
        body: '{"token": "{{secrets.TOKEN}}"}',
        secrets: ['API_KEY', 'TOKEN'],
      });
      const r = await run(t, {});
      const req = seen.at(-1)!;
      assert.equal(req.url, '/echo?key=k-123%2Fabc%2B%3D');
      assert.equal(req.headers.authorization, 'Bearer tok_SUPERSECRET_42');
      assert.deepEqual(JSON.parse(req.body), { token: 'tok_SUPERSECRET_42' });
      // The server echoes them back; the model sees only labels.
      assert.equal(r.ok, true);
      assert.ok(!r.content.includes('tok_SUPERSECRET_42'), r.content);
      assert.ok(!r.content.includes('k-123'), r.content);
      assert.ok(r.content.includes('[secret:TOKEN]'), r.content);
      assert.ok(r.content.includes('[secret:API_KEY]'), r.content);
    });

    it('substitutes a connection access token', async () => {
      const t = tool({ method: 'GET', url: `${base}/echo`, headers: { Authorization: 'token {{connections.github}}' } });
      const r = await run(t, {});
      assert.equal(seen.at(-1)!.headers.authorization, 'token gho_accesstoken_9000');
      assert.match(r.content, /"authorization":"token \[connection:github\]"/);
    });
  });

  describe('errors the model sees (never a throw, no request made)', () => {
    const expectNoRequest = async (t: HttpTool, args: Record<string, unknown>, message: RegExp, creds: Credentials = credentials) => {
      const before = seen.length;
      const r = await run(t, args, creds);
      assert.equal(r.ok, false);
      assert.match(r.content, message);
      assert.equal(seen.length, before, 'no request was made');
      for (const value of [...Object.values(creds.secrets), 'gho_accesstoken_9000']) {
        if (value.length >= 4) assert.ok(!r.content.includes(value), `no secret value in ${r.content}`);
      }
      return r;
    };

    it('a secret the tool does not list', async () => {
      const t = tool({ method: 'GET', url: `${base}/x`, headers: { 'X-Key': '{{secrets.UNLISTED}}' }, secrets: ['API_KEY'] });
      await expectNoRequest(t, {}, /^call_api: secret "UNLISTED" is not listed in this tool's secrets/);
    });

    it('a listed secret without a value, a missing connection', async () => {
      const t = tool({ method: 'GET', url: `${base}/x?k={{secrets.API_KEY}}`, secrets: ['API_KEY'] });
      await expectNoRequest(t, {}, /secret "API_KEY" has no value/, { secrets: {}, connections: {} });
      const c = tool({ method: 'GET', url: `${base}/x`, headers: { Authorization: 'Bearer {{connections.slack}}' } });
      await expectNoRequest(c, {}, /connection "slack" is not connected/);
    });

    it('invalid arguments: all problems at once', async () => {
      const t = tool({
        method: 'GET',
        url: `${base}/users/{id}`,
        params: {
          id: { type: 'string', in: 'path' },
          limit: { type: 'integer', required: true },
          sort: { type: 'string', enum: ['asc', 'desc'] },
          flag: { type: 'boolean' },
          ratio: { type: 'number' },
        },
      });
      const r = await expectNoRequest(t, { limit: 1.5, sort: 'up', flag: 'yes', ratio: '2', bogus: 1 }, /^call_api: invalid arguments: /);
      assert.equal(
        r.content,
        'call_api: invalid arguments: unknown argument "bogus" (expected: id, limit, sort, flag, ratio); "id" is required; ' +
          '"limit" must be an integer (got 1.5); "sort" must be one of "asc", "desc" (got "up"); "flag" must be true or false (got "yes"); ' +
          '"ratio" must be a number (got "2")',
      );
      await expectNoRequest(t, { id: '', limit: 1 }, /"id" must not be empty/);
      const h = tool({ method: 'GET', url: `${base}/x`, params: { 'X-H': { type: 'string', in: 'header' } } });
      await expectNoRequest(h, { 'X-H': 'a\r\nInjected: 1' }, /"X-H" must not contain line breaks/);
    });

    it('a GET with a body', async () => {
      const t = tool({ method: 'GET', url: `${base}/x`, params: { q: { type: 'string', in: 'body' } } });
      await expectNoRequest(t, { q: 'x' }, /a GET request cannot have a body/);
    });

    it('a private address with the default configuration', async () => {
      const t = tool({ method: 'GET', url: `${base}/x?key={{secrets.API_KEY}}`, secrets: ['API_KEY'] });
      const before = seen.length;
      const r = await runHttpTool(t, {}, { fetch: createSafeFetch({ allowPrivate: false }), credentials, signal });
      assert.equal(r.ok, false);
      assert.match(r.content, /^call_api: refused to connect to 127\.0\.0\.1 \(loopback\).*OUTBOUND_ALLOW_PRIVATE/);
      assert.equal(seen.length, before);
    });
  });

  it('a non-2xx status is ok: false with the status and body', async () => {
    const r = await run(tool({ method: 'DELETE', url: `${base}/fail` }), {});
    assert.deepEqual(r, { ok: false, content: 'HTTP 500 Internal Server Error\ncontent-type: application/json\n\n{"error":"boom"}' });
    assert.equal(seen.at(-1)!.method, 'DELETE');
  });

  it('honours timeoutMs', async () => {
    const started = Date.now();
    const r = await run(tool({ method: 'GET', url: `${base}/slow?key={{secrets.TOKEN}}`, secrets: ['TOKEN'], timeoutMs: 250 }), {});
    assert.equal(r.ok, false);
    assert.equal(r.content, `call_api: request to ${base}/slow?key=[secret:TOKEN] timed out after 250 ms`);
    assert.ok(Date.now() - started < 3000);
  });

  it('buildHttpRequest reports the credential values it put in', () => {
    const t = tool({ method: 'POST', url: 'https://api.example.com/{id}', headers: { A: '{{secrets.TOKEN}}' }, params: { id: { type: 'string', in: 'path' } }, secrets: ['TOKEN'] });
    const built = buildHttpRequest(t, { id: 'x' }, credentials);
    assert.ok(built.ok);
    assert.deepEqual(built.request, {
      url: 'https://api.example.com/x',
      method: 'POST',
      headers: { a: 'tok_SUPERSECRET_42' },
      credentialValues: ['tok_SUPERSECRET_42'],
    });
  });
});

describe('credential substitution and masking', () => {
  it('substituteCredentials fills secrets and connections and lists the values', () => {
    const r = substituteCredentials('a={{secrets.API_KEY}}&b={{connections.github}}&c={{args.x}}&d={{other.y}}', credentials);
    assert.deepEqual(r, {
      ok: true,
      value: 'a=k-123/abc+=&b=gho_accesstoken_9000&c={{args.x}}&d={{other.y}}',
      values: ['k-123/abc+=', 'gho_accesstoken_9000'],
    });
    assert.deepEqual(substituteCredentials('{{secrets.API_KEY}}', credentials, { encode: encodeURIComponent }), {
      ok: true,
      value: 'k-123%2Fabc%2B%3D',
      values: ['k-123/abc+='],
    });
    assert.deepEqual(substituteCredentials('{{secrets.NOPE}}', credentials), { ok: false, error: 'secret "NOPE" has no value (it is not set for this agent or conversation)' });
    const notListed = substituteCredentials('{{secrets.TOKEN}}', credentials, { allowedSecrets: ['API_KEY'] });
    assert.equal(notListed.ok, false);
    assert.deepEqual(substituteCredentials('{{connections.nope}}', credentials), {
      ok: false,
      error: 'connection "nope" is not connected (no token for this agent or conversation)',
    });
  });

  it('maskSecrets hides values and their encoded forms, longest first, never short ones', () => {
    const creds: Credentials = {
      secrets: { LONG: 'abcdefgh-long', PART: 'abcdefgh', TINY: 'xyz', SPACE: 'with space/slash' },
      connections: { github: { accessToken: 'gho_token_1234', refreshToken: 'ghr_refresh_5678' } },
    };
    const b64 = Buffer.from('abcdefgh-long').toString('base64');
    const text = [
      'abcdefgh-long',
      'abcdefgh',
      'xyz',
      b64,
      encodeURIComponent('with space/slash'),
      'with+space%2Fslash',
      'gho_token_1234',
      'ghr_refresh_5678',
      JSON.stringify({ v: 'with space/slash' }),
    ].join(' | ');
    assert.equal(
      maskSecrets(text, creds),
      '[secret:LONG] | [secret:PART] | xyz | [secret:LONG] | [secret:SPACE] | [secret:SPACE] | [connection:github] | [connection:github] | {"v":"[secret:SPACE]"}',
    );
    assert.equal(maskSecrets('nothing here', { secrets: {}, connections: {} }), 'nothing here');
    // A label is never masked again, even when a secret is a part of it.
    assert.equal(maskSecrets('secret', { secrets: { a: 'secret', b: 'cret' }, connections: {} }), '[secret:a]');
  });
});
