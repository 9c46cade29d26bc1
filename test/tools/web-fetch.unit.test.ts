import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { toolLimits } from '../../activities/tools/limits';
import { createSafeFetch } from '../../activities/outbound/safe-fetch';
import { htmlToText, runWebFetch, webFetchTool } from '../../activities/tools/web-fetch';

const PAGE = `<!DOCTYPE html>
<html><head><title>The  Title</title>
<style>body { color: red; }</style>
<script>var secret = "do not show";</script>
</head>
<body>
  <!-- a comment -->
  <h1>Heading &amp; more</h1>
  <p>First   paragraph with <a href="/x">a link</a> and&nbsp;entities: &lt;tag&gt; &#169; &#x263A;.</p>
  <noscript>enable js</noscript>
  <ul><li>one</li><li>two</li></ul>
  <script type="module">import x from "y";</script>
</body></html>`;

describe('web.fetch', () => {
  let server: http.Server;
  let base: string;
  const hits: string[] = [];
  const fetchAll = createSafeFetch({ allowPrivate: ['127.0.0.0/8'] });
  const signal = new AbortController().signal;

  before(async () => {
    server = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      switch (req.url) {
        case '/page':
          res.setHeader('content-type', 'text/html; charset=utf-8');
          res.end(PAGE);
          return;
        case '/json':
          res.setHeader('content-type', 'application/json');
          res.setHeader('content-length', '25');
          res.end(req.method === 'HEAD' ? undefined : '{"a": [1, 2, {"b": "c"}]}');
          return;
        case '/png':
          res.setHeader('content-type', 'image/png');
          res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
          return;
        case '/untyped-binary':
          res.removeHeader('content-type');
          res.end(Buffer.from([1, 2, 0, 3]));
          return;
        case '/missing':
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('no such page');
          return;
        case '/long':
          res.setHeader('content-type', 'text/plain');
          res.end('y'.repeat(toolLimits.modelTextChars + 500));
          return;
        case '/huge':
          res.setHeader('content-type', 'application/octet-stream');
          res.end(Buffer.alloc(toolLimits.responseBytes + 10));
          return;
        case '/moved':
          res.writeHead(301, { location: '/json' });
          res.end();
          return;
        case '/slow':
          // Never answers; the client's timeout ends the call.
          return;
        default:
          res.setHeader('content-type', 'text/plain');
          res.end('plain text');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('offers web_fetch with a schema that admits exactly the argument shapes the tool runs', async () => {
    assert.equal(webFetchTool.name, 'web_fetch');
    assert.ok(webFetchTool.description.length > 20);
    const offered = z.fromJSONSchema(webFetchTool.parameters as Parameters<typeof z.fromJSONSchema>[0]);
    const url = `${base}/json`;
    const shapes: Array<Record<string, unknown>> = [
      { url },
      { url, method: 'GET' },
      { url, method: 'HEAD' },
      {},
      { method: 'GET' },
      { url: 42 },
      { url, method: 'POST' },
      { url, method: 'get' },
      { url, extra: 1 },
    ];
    for (const args of shapes) {
      const ran = await runWebFetch(args, { fetch: fetchAll, signal });
      assert.equal(offered.safeParse(args).success, ran.ok, `${JSON.stringify(args)}: ${ran.content.split('\n')[0]}`);
    }
    // The model reads what each argument is for.
    for (const [name, property] of Object.entries(webFetchTool.parameters.properties ?? {})) {
      assert.ok(String((property as { description?: string }).description ?? '').length > 10, `${name} has no description`);
    }
  });

  it('HTML becomes readable text: no scripts, styles, comments or tags', async () => {
    const r = await runWebFetch({ url: `${base}/page` }, { fetch: fetchAll, signal });
    assert.equal(r.ok, true);
    assert.equal(
      r.content,
      'HTTP 200 OK\ncontent-type: text/html; charset=utf-8\n\n' +
        'The Title\n\nHeading & more\n\nFirst paragraph with a link and entities: <tag> © ☺.\n\none\n\ntwo',
    );
  });

  it('htmlToText handles tables, entities and an unclosed script', () => {
    assert.equal(htmlToText('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>'), 'a b\n\nc');
    assert.equal(htmlToText('<p>x &unknown; &#0; &quot;q&quot;</p><script>leak('), 'x &unknown; &#0; "q"');
  });

  it('JSON and text are given as they are', async () => {
    const json = await runWebFetch({ url: `${base}/json` }, { fetch: fetchAll, signal });
    assert.deepEqual(json, { ok: true, content: 'HTTP 200 OK\ncontent-type: application/json\n\n{"a": [1, 2, {"b": "c"}]}' });
    const text = await runWebFetch({ url: `${base}/text`, method: 'GET' }, { fetch: fetchAll, signal });
    assert.equal(text.content, 'HTTP 200 OK\ncontent-type: text/plain\n\nplain text');
  });

  it('binary content is described, not shown', async () => {
    const png = await runWebFetch({ url: `${base}/png` }, { fetch: fetchAll, signal });
    assert.equal(png.content, 'HTTP 200 OK\ncontent-type: image/png\n\n[binary content, 10 bytes, image/png]');
    const untyped = await runWebFetch({ url: `${base}/untyped-binary` }, { fetch: fetchAll, signal });
    assert.equal(untyped.content, 'HTTP 200 OK\ncontent-type: (none)\n\n[binary content, 4 bytes, unknown type]');
    const huge = await runWebFetch({ url: `${base}/huge` }, { fetch: fetchAll, signal });
    assert.match(huge.content, /\[binary content, more than 1048576 bytes, application\/octet-stream\]$/);
  });

  it('a non-2xx status is a response like any other (ok: true, status in the content)', async () => {
    const r = await runWebFetch({ url: `${base}/missing` }, { fetch: fetchAll, signal });
    assert.deepEqual(r, { ok: true, content: 'HTTP 404 Not Found\ncontent-type: text/plain\n\nno such page' });
  });

  it('HEAD gives the status and headers only', async () => {
    const r = await runWebFetch({ url: `${base}/json`, method: 'HEAD' }, { fetch: fetchAll, signal });
    assert.equal(r.content, 'HTTP 200 OK\ncontent-type: application/json\ncontent-length: 25');
    assert.equal(hits.at(-1), 'HEAD /json');
  });

  it('says where a redirect led', async () => {
    const r = await runWebFetch({ url: `${base}/moved` }, { fetch: fetchAll, signal });
    assert.equal(r.content, `HTTP 200 OK\ncontent-type: application/json\nurl: ${base}/json\n\n{"a": [1, 2, {"b": "c"}]}`);
  });

  it('long text is cut for the model with a note', async () => {
    const r = await runWebFetch({ url: `${base}/long` }, { fetch: fetchAll, signal });
    const head = 'HTTP 200 OK\ncontent-type: text/plain\n\n';
    assert.ok(r.content.startsWith(`${head}yyy`));
    assert.match(r.content, /\n\[truncated: \d+ more characters\]$/);
    assert.equal(r.content.split('\n[truncated')[0]!.length, toolLimits.modelTextChars);
  });

  it('a timeout is ok: false with a clear message', async () => {
    const started = Date.now();
    const r = await runWebFetch({ url: `${base}/slow` }, { fetch: fetchAll, signal, timeoutMs: 300 });
    assert.deepEqual(r, { ok: false, content: `web_fetch: request to ${base}/slow timed out after 300 ms` });
    assert.ok(Date.now() - started < 5000);
  });

  it('cancellation by the caller is reported as such', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await runWebFetch({ url: `${base}/slow` }, { fetch: fetchAll, signal: controller.signal });
    assert.deepEqual(r, { ok: false, content: `web_fetch: request to ${base}/slow was cancelled` });
  });

  it('private addresses are refused with the default configuration, without a throw', async () => {
    const before = hits.length;
    const r = await runWebFetch({ url: `${base}/json` }, { fetch: createSafeFetch({ allowPrivate: false }), signal });
    assert.equal(r.ok, false);
    assert.match(r.content, /^web_fetch: refused to connect to 127\.0\.0\.1 \(loopback\).*OUTBOUND_ALLOW_PRIVATE/);
    assert.equal(hits.length, before);
    const meta = await runWebFetch({ url: 'http://169.254.169.254/latest/meta-data/' }, { fetch: createSafeFetch({ allowPrivate: false }), signal });
    assert.match(meta.content, /refused to connect to 169\.254\.169\.254 \(linkLocal\)/);
  });

  it('DNS failures and bad arguments are ok: false', async () => {
    const dnsFail = await runWebFetch({ url: 'http://no-such-host.invalid/' }, { fetch: fetchAll, signal });
    assert.equal(dnsFail.ok, false);
    assert.match(dnsFail.content, /^web_fetch: could not resolve host no-such-host\.invalid \(E[A-Z_]+\)$/);
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /"url" is required/],
      [{ url: 'ftp://example.com/' }, /only http:\/\/ and https:\/\//],
      [{ url: 'file:///etc/passwd' }, /only http:\/\/ and https:\/\//],
      [{ url: 'nope' }, /not a valid URL/],
      [{ url: 'https://example.com', method: 'POST' }, /"method" must be GET or HEAD/],
      [{ url: 'https://example.com', extra: 1 }, /unknown argument "extra"/],
      [{ url: 'https://user:pw@example.com' }, /user name or password/],
    ];
    for (const [args, message] of bad) {
      const r = await runWebFetch(args, { fetch: fetchAll, signal });
      assert.equal(r.ok, false, JSON.stringify(args));
      assert.match(r.content, message);
    }
  });
});
