import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressPolicy } from '../../activities/outbound/address-policy';
import { OutboundError, OutboundRefusedError } from '../../activities/outbound/errors';
import { createSafeFetch } from '../../activities/outbound/safe-fetch';
import { runHttpTool } from '../../activities/tools/http-tool';
import { createToolRunner } from '../../activities/tools/runner';
import type { ToolContext } from '../../activities/tools/types';
import { loadConfig } from '../../config/env';
import { createDb } from '../../db/connect';
import { createRepositories } from '../../db/repositories';
import { agentConfigSchema } from '../../domain/agent';
import { httpToolSchema } from '../../domain/agent-tools';

const SECRET = 'tok_live_9f8e7d6c5b4a3210';

/** A loopback server: `/redirect?to=` answers 307 there; anything else records the request. */
async function serve(): Promise<{ url: string; seen: Array<{ path: string; body: string; auth?: string }>; close(): Promise<void> }> {
  const seen: Array<{ path: string; body: string; auth?: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/redirect') {
        res.writeHead(307, { location: url.searchParams.get('to') ?? '/' });
        res.end();
        return;
      }
      seen.push({ path: url.pathname, body, ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('Files and data lifecycle: tools and outbound', () => {
  it('a tool that throws has its message masked like any other result', async () => {
    // The repositories are never queried here: the thrown tool comes from the extra sources.
    const db = createDb({ url: 'postgres://unused@127.0.0.1:1/unused', poolMax: 1 });
    try {
      const runner = createToolRunner({
        repos: createRepositories(db),
        sources: {
          extra: async () => [
            {
              definition: { name: 'leaky', description: 'Throws', parameters: { type: 'object' } },
              displayName: 'leaky',
              describe: () => ({ label: 'Leaking', kind: 'other' }),
              run: async () => {
                throw new Error(`GET https://api.example.com/?key=${SECRET} failed`);
              },
            },
          ],
          mask: async (_ctx, text) => text.replaceAll(SECRET, '[secret:API_KEY]'),
        },
      });
      const ctx: ToolContext = {
        workspaceId: 'wsp_x', agentId: 'agt_x', conversationId: 'cnv_x', drive: 'drive:cnv_x', turnId: 'trn_x',
        agent: agentConfigSchema.parse({ name: 'Leaky' }),
      };
      const prepared = await runner.prepare(ctx, { id: 'call_1', name: 'leaky', args: {} });
      const result = await prepared.run(new AbortController().signal);
      assert.equal(result.ok, false);
      assert.ok(!result.content.includes(SECRET), result.content);
      assert.match(result.content, /^the tool failed: GET https:\/\/api\.example\.com\/\?key=\[secret:API_KEY\] failed$/);
    } finally {
      await db.destroy();
    }
  });

  describe('a request carrying credentials never follows a cross-origin redirect with its body', () => {
    let first: Awaited<ReturnType<typeof serve>>;
    let other: Awaited<ReturnType<typeof serve>>;
    const f = createSafeFetch({ allowPrivate: ['127.0.0.0/8'] });
    before(async () => {
      [first, other] = await Promise.all([serve(), serve()]);
    });
    after(async () => {
      await Promise.all([first.close(), other.close()]);
    });
    const toOther = () => `${first.url}/redirect?to=${encodeURIComponent(`${other.url}/elsewhere`)}`;

    it('a credential header: refused, nothing reaches the other origin', async () => {
      await assert.rejects(
        f(toOther(), { method: 'POST', body: `{"token":"${SECRET}"}`, headers: { authorization: `Bearer ${SECRET}` } }),
        (e: unknown) => e instanceof OutboundError && /to another origin .* carrying credentials/.test(e.message),
      );
      assert.equal(other.seen.length, 0);
    });

    it('a secret filled into the body of an HTTP tool: refused as well', async () => {
      const tool = httpToolSchema.parse({
        name: 'post_it', description: 'Posts', method: 'POST', url: toOther(), body: '{"token":"{{secrets.API_KEY}}"}', secrets: ['API_KEY'],
      });
      const result = await runHttpTool(tool, {}, { fetch: f, credentials: { secrets: { API_KEY: SECRET }, connections: {} }, signal: new AbortController().signal });
      assert.equal(result.ok, false);
      assert.match(result.content, /carrying credentials/);
      assert.equal(other.seen.length, 0);
    });

    it('without credentials, or to the same origin, the body goes on', async () => {
      await (await f(toOther(), { method: 'POST', body: 'plain' })).text();
      assert.deepEqual(other.seen.at(-1), { path: '/elsewhere', body: 'plain' });
      const same = `${first.url}/redirect?to=${encodeURIComponent('/same')}`;
      await (await f(same, { method: 'POST', body: 'mine', headers: { authorization: 'Bearer x' } })).text();
      assert.deepEqual(first.seen.at(-1), { path: '/same', body: 'mine', auth: 'Bearer x' });
    });
  });

  describe('OUTBOUND_ALLOW_PRIVATE=true still blocks link-local and cloud metadata unless listed explicitly', () => {
    const refused = (e: unknown) => e instanceof OutboundRefusedError;
    // Literal addresses and metadata names are refused before any connection is tried.
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://169.254.10.1/', 'http://[fe80::1]/', 'http://[fd00:ec2::254]/', 'http://metadata.google.internal/']) {
      it(`true refuses ${url}`, async () => {
        await assert.rejects(createSafeFetch({ allowPrivate: loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'true' }).OUTBOUND_ALLOW_PRIVATE })(url), refused);
      });
    }

    it('true still allows other private ranges; an explicit entry inside the range allows it', () => {
      const all = new AddressPolicy(true);
      for (const a of ['10.0.0.1', '127.0.0.1', '192.168.1.1', 'fd00::1']) assert.doesNotThrow(() => all.checkAddress(a, a));
      const listed = new AddressPolicy(loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'true,169.254.169.254/32,fd00:ec2::254,metadata.google.internal' }).OUTBOUND_ALLOW_PRIVATE);
      for (const a of ['169.254.169.254', 'fd00:ec2::254', '10.0.0.1']) assert.doesNotThrow(() => listed.checkAddress(a, a));
      assert.doesNotThrow(() => listed.checkHostName('metadata.google.internal'));
      assert.throws(() => listed.checkAddress('169.254.1.1', '169.254.1.1'), refused, 'only the listed address');
      // A range wider than link-local is not an explicit listing.
      assert.throws(() => new AddressPolicy(['0.0.0.0/0']).checkAddress('169.254.169.254', '169.254.169.254'), refused);
      assert.doesNotThrow(() => new AddressPolicy(['169.254.0.0/16']).checkAddress('169.254.169.254', '169.254.169.254'));
    });
  });
});
