import assert from 'node:assert/strict';
import type { McpServer } from '../../domain/agent-tools';
import { connectMcp, type McpSession } from '../../activities/tools/mcp/client';
import { callMcpTool, listMcpTools } from '../../activities/tools/mcp/tools';
import { createSafeFetch, type SafeFetch } from '../../activities/outbound/safe-fetch';
import {
  freePort,
  startEverything,
  startRecordingProxy,
  startSilentServer,
  type EverythingServer,
  type EverythingTransport,
  type LocalServer,
  type RecordingProxy,
} from '../support/mcp-everything';

/**
 * MCP tools against the real reference "everything" server, over Streamable HTTP and HTTP+SSE.
 * Tools used (verified in @modelcontextprotocol/server-everything 2026.8.31): `echo`, `get-sum`,
 * `get-tiny-image`, `get-env`, `get-resource-reference` (throws → isError for resourceId 0) and
 * `trigger-long-running-operation` (sleeps `duration` seconds).
 */

const BIG = 'x'.repeat(20_000);

for (const transport of ['http', 'sse'] as const satisfies readonly EverythingTransport[]) {
  describe(`MCP tools over ${transport === 'http' ? 'Streamable HTTP' : 'SSE'}`, function () {
    this.timeout(30_000);
    let everything: EverythingServer;
    let server: McpServer;
    let session: McpSession | undefined;

    before(async () => {
      everything = await startEverything(transport, { BIG });
      server = { name: 'everything', url: everything.url, transport };
    });

    afterEach(async () => {
      await session?.close();
      session = undefined;
    });

    after(async () => {
      await everything?.stop();
    });

    it('lists the server tools, named for the model', async () => {
      const { tools, problems } = await listMcpTools([server], { headers: () => ({}) });
      assert.deepEqual(problems, []);
      const byTool = new Map(tools.map((t) => [t.tool, t]));
      for (const name of ['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation']) assert.ok(byTool.has(name), `has ${name}`);
      const echo = byTool.get('echo')!;
      assert.equal(echo.modelName, 'everything__echo');
      assert.equal(echo.displayName, 'everything.echo');
      assert.equal(echo.server, 'everything');
      assert.equal(echo.definition.name, 'everything__echo');
      assert.equal(echo.definition.description, 'Echoes back the input string');
      assert.equal(echo.definition.parameters.type, 'object');
      assert.deepEqual(echo.definition.parameters.required, ['message']);
      for (const t of tools) assert.match(t.modelName, /^[a-zA-Z0-9_-]{1,64}$/);
    });

    it('calls echo and get-sum', async () => {
      session = await connectMcp(server, { headers: {} });
      assert.deepEqual(await session.callTool('echo', { message: 'hello there' }), { ok: true, content: 'Echo: hello there' });
      const sum = await session.callTool('get-sum', { a: 2.5, b: 40 });
      assert.equal(sum.ok, true);
      assert.match(sum.content, /\b42\.5\b/);
    });

    it('summarises image content', async () => {
      session = await connectMcp(server, { headers: {} });
      const r = await session.callTool('get-tiny-image', {});
      assert.equal(r.ok, true);
      assert.match(r.content, /\[image image\/png, \d+ bytes\]/);
      assert.doesNotMatch(r.content, /iVBORw0KGgo/, 'no base64 for the model');
    });

    it('caps long content at 16 000 characters with a note', async () => {
      session = await connectMcp(server, { headers: {} });
      const r = await session.callTool('get-env', {});
      assert.equal(r.ok, true);
      assert.match(r.content, /\n\[truncated: \d+ more characters\]$/);
      assert.ok(r.content.length <= 16_100);
    });

    it('an isError result, bad arguments and an unknown tool are ok: false', async () => {
      session = await connectMcp(server, { headers: {} });
      const err = await session.callTool('get-resource-reference', { resourceId: 0 });
      assert.equal(err.ok, false);
      assert.match(err.content, /Invalid resourceId/);
      const bad = await session.callTool('echo', {});
      assert.equal(bad.ok, false);
      assert.match(bad.content, /message/);
      const unknown = await session.callTool('no-such-tool', {});
      assert.equal(unknown.ok, false);
      assert.match(unknown.content, /no-such-tool/);
    });

    it('honours timeoutMs on a call', async () => {
      session = await connectMcp({ ...server, timeoutMs: 300 }, { headers: {} });
      const started = Date.now();
      const r = await session.callTool('trigger-long-running-operation', { duration: 5, steps: 1 });
      assert.deepEqual(r, { ok: false, content: 'everything.trigger-long-running-operation timed out after 300 ms' });
      assert.ok(Date.now() - started < 3_000);
      // The session is still usable after a timed-out call.
      assert.equal((await session.callTool('echo', { message: 'still here' })).content, 'Echo: still here');
    });

    it('a call is cancelled by its signal', async () => {
      session = await connectMcp(server, { headers: {} });
      const started = Date.now();
      const r = await session.callTool('trigger-long-running-operation', { duration: 5, steps: 1 }, AbortSignal.timeout(200));
      assert.equal(r.ok, false);
      assert.match(r.content, /cancelled/);
      assert.ok(Date.now() - started < 3_000);
    });

    it('a closed session answers ok: false', async () => {
      const s = await connectMcp(server, { headers: {} });
      await s.close();
      await s.close();
      const r = await s.callTool('echo', { message: 'x' });
      assert.equal(r.ok, false);
      assert.match(r.content, /closed/);
    });

    describe('headers and the custom fetch', () => {
      let proxy: RecordingProxy;
      before(async () => {
        proxy = await startRecordingProxy(everything.port);
      });
      after(async () => {
        await proxy?.close();
      });

      it('sends the headers with every request, through the given fetch', async () => {
        const seen: string[] = [];
        const counting: SafeFetch = (url, init) => {
          seen.push(`${init?.method ?? 'GET'} ${new URL(url).pathname}`);
          return fetch(url, init);
        };
        const viaProxy: McpServer = { ...server, url: `${proxy.origin}${new URL(everything.url).pathname}` };
        proxy.requests.length = 0;
        const r = await callMcpTool(viaProxy, 'echo', { message: 'with headers' }, {
          headers: { 'X-Api-Key': 'key-123', Authorization: 'Bearer tok-456' },
          fetch: counting,
        });
        assert.deepEqual(r, { ok: true, content: 'Echo: with headers' });
        assert.ok(proxy.requests.length >= 3, `requests: ${proxy.requests.map((q) => `${q.method} ${q.path}`).join(', ')}`);
        for (const q of proxy.requests) {
          assert.equal(q.headers['x-api-key'], 'key-123', `${q.method} ${q.path}`);
          assert.equal(q.headers.authorization, 'Bearer tok-456', `${q.method} ${q.path}`);
        }
        assert.ok(seen.some((s) => s.startsWith('POST ')), `fetch saw: ${seen.join(', ')}`);
        if (transport === 'sse') assert.ok(seen.includes('GET /sse'), `fetch saw the event stream: ${seen.join(', ')}`);
        assert.equal(seen.length, proxy.requests.length, 'every request went through the given fetch');
      });

      it('the outbound-safety fetch applies: loopback refused by default, allowed when configured', async () => {
        const refused = await listMcpTools([server], { fetch: createSafeFetch({ allowPrivate: false }) });
        assert.deepEqual(refused.tools, []);
        assert.equal(refused.problems.length, 1);
        assert.match(refused.problems[0]!, /^MCP server everything unreachable at .*refused/);
        const allowed = await callMcpTool(server, 'echo', { message: 'safe' }, { headers: {}, fetch: createSafeFetch({ allowPrivate: true }) });
        assert.deepEqual(allowed, { ok: true, content: 'Echo: safe' });
      });

      it('listing passes each server its own headers', async () => {
        const viaProxy: McpServer = { ...server, name: 'proxied', url: `${proxy.origin}${new URL(everything.url).pathname}`, headers: { 'x-raw': '{{secret}}' } };
        proxy.requests.length = 0;
        const { tools, problems } = await listMcpTools([viaProxy], { headers: (s) => ({ 'x-server': s.name }) });
        assert.deepEqual(problems, []);
        assert.ok(tools.some((t) => t.modelName === 'proxied__echo'));
        assert.ok(proxy.requests.length > 0);
        for (const q of proxy.requests) {
          assert.equal(q.headers['x-server'], 'proxied');
          assert.equal(q.headers['x-raw'], undefined);
        }
      });
    });

    describe('failing servers', () => {
      let silent: LocalServer;
      let closedUrl: string;
      before(async () => {
        silent = await startSilentServer();
        closedUrl = `http://127.0.0.1:${await freePort()}${new URL(everything.url).pathname}`;
      });
      after(async () => {
        await silent?.close();
      });

      it('an unreachable server: connect rejects clearly, a call is ok: false', async () => {
        const dead: McpServer = { name: 'dead', url: closedUrl, transport };
        await assert.rejects(connectMcp(dead, { headers: {} }), /MCP server dead unreachable at http:\/\/127\.0\.0\.1:\d+\/(mcp|sse)/);
        const r = await callMcpTool(dead, 'echo', { message: 'x' }, { headers: {} });
        assert.equal(r.ok, false);
        assert.match(r.content, /^dead\.echo failed: MCP server dead unreachable/);
      });

      it('a server that never answers: connect times out within timeoutMs', async () => {
        const hung: McpServer = { name: 'hung', url: `${silent.origin}${new URL(everything.url).pathname}`, transport, timeoutMs: 300 };
        const started = Date.now();
        await assert.rejects(connectMcp(hung, { headers: {} }), /MCP server hung did not answer within 300 ms/);
        assert.ok(Date.now() - started < 3_000);
      });

      it('listing skips failing servers with problems and keeps the others', async () => {
        const servers: McpServer[] = [
          { name: 'one', url: everything.url, transport },
          { name: 'dead', url: closedUrl, transport },
          { name: 'hung', url: `${silent.origin}/mcp`, transport, timeoutMs: 300 },
          { name: 'two', url: everything.url, transport },
        ];
        const started = Date.now();
        const { tools, problems } = await listMcpTools(servers);
        assert.ok(Date.now() - started < 5_000);
        assert.equal(problems.length, 2, problems.join('\n'));
        assert.match(problems[0]!, /MCP server dead unreachable/);
        assert.match(problems[1]!, /MCP server hung did not answer within 300 ms/);
        const names = tools.map((t) => t.modelName);
        assert.ok(names.includes('one__echo') && names.includes('two__echo'));
        assert.equal(new Set(names).size, names.length);
        assert.deepEqual(new Set(tools.map((t) => t.server)), new Set(['one', 'two']));
      });

      it('a listing cancelled by its signal reports problems, never throws', async () => {
        const { tools, problems } = await listMcpTools([{ name: 'hung', url: `${silent.origin}/mcp`, transport }], { signal: AbortSignal.timeout(200) });
        assert.deepEqual(tools, []);
        assert.equal(problems.length, 1);
        assert.match(problems[0]!, /cancelled/);
      });
    });
  });
}
