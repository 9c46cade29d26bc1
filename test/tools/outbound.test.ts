import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Service, type TurnEvent } from '../../sdk/src';
import { type RunningApi, useTestApi } from '../support/api';
import { useIsolatedStack } from '../support/isolated-stack';

/** A local server counting its requests; optionally redirecting every request to `redirectTo`. */
async function localServer(host: string, redirectTo?: string) {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    if (redirectTo) res.writeHead(302, { location: redirectTo }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('internal admin page');
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}/`, hits: () => hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function ask(api: RunningApi, text: string, extra: Record<string, unknown> = {}): Promise<TurnEvent[]> {
  const { apiKey } = await api.newWorkspace({ credits: 10 });
  const ws = new Service({ apiKey, baseURL: api.baseURL });
  const agent = await ws.agents.create({ name: 'Fetcher', tools: ['web.fetch'], ...extra });
  const events: TurnEvent[] = [];
  for await (const e of (await agent.start()).ask(text)) events.push(e);
  return events;
}

const toolEnd = (events: TurnEvent[]) => events.find((e) => e.type === 'tool' && e.state === 'end');

describe('outbound safety: private addresses are refused by default, redirects included', function () {
  this.timeout(60_000);

  describe('with the default configuration', () => {
    const api = useTestApi();
    let internal: Awaited<ReturnType<typeof localServer>>;
    before(async () => {
      internal = await localServer('127.0.0.1');
    });
    after(() => internal.close());

    it('web.fetch of a loopback address is refused before connecting; the turn goes on', async () => {
      const events = await ask(api, `/tool web_fetch {"url":"${internal.url}"}`);
      assert.deepEqual(toolEnd(events), { type: 'tool', name: 'web.fetch', state: 'end', ok: false });
      assert.match(JSON.stringify(events.at(-1)), /refused to connect/);
      assert.equal(internal.hits(), 0, 'no request reached the internal server');
      assert.equal(events.at(-1)?.type, 'done');
    });

    for (const url of ['http://localhost/', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://[::1]/', 'http://metadata.google.internal/']) {
      it(`web.fetch ${url} is refused`, async () => {
        const events = await ask(api, `/tool web_fetch {"url":"${url}"}`);
        const end = toolEnd(events);
        assert.equal(end?.type === 'tool' && end.ok, false);
        assert.match(JSON.stringify(events.at(-1)), /refused/);
      });
    }

    it('an HTTP tool aimed at a private address is refused the same way', async () => {
      const events = await ask(api, '/tool admin {}', {
        tools: [],
        httpTools: [{ name: 'admin', description: 'Admin page', method: 'GET', url: internal.url }],
      });
      assert.deepEqual(toolEnd(events), { type: 'tool', name: 'admin', state: 'end', ok: false });
      assert.equal(internal.hits(), 0);
    });

    it('creating or updating an agent whose tool URL is private saves it, with a warning naming the tool and why', async () => {
      const { apiKey } = await api.newWorkspace({ credits: 10 });
      const ws = new Service({ apiKey, baseURL: api.baseURL });
      const created = await ws.agents.create({
        name: 'Local tools',
        httpTools: [
          { name: 'admin', description: 'Admin page', method: 'GET', url: internal.url },
          { name: 'shop', description: 'A public API', method: 'GET', url: 'https://api.example.com/items/{id}', params: { id: { type: 'string', in: 'path' } } },
        ],
        mcpServers: [{ name: 'catalog', url: 'http://localhost:9/mcp' }],
      });
      assert.deepEqual(created.warnings, [
        'HTTP tool admin: 127.0.0.1 is a private or internal address (loopback), which tools may not reach, so every call of it will fail; an operator can allow it with OUTBOUND_ALLOW_PRIVATE',
        'MCP server catalog: localhost is a private or internal address (loopback), which tools may not reach, so turns cannot list or call its tools; an operator can allow it with OUTBOUND_ALLOW_PRIVATE',
      ]);
      assert.equal(created.version, 1, 'saved all the same');
      assert.equal((await ws.agent(created.id).get()).warnings, undefined, 'a warning is said when saving, not stored');

      const linkLocal = await created.update({ httpTools: [{ name: 'meta', description: 'Metadata', method: 'GET', url: 'http://169.254.169.254/latest' }], mcpServers: [] });
      assert.deepEqual(linkLocal.warnings, [
        'HTTP tool meta: 169.254.169.254 is a private or internal address (linkLocal), which tools may not reach, so every call of it will fail; an operator can allow it with OUTBOUND_ALLOW_PRIVATE',
      ]);
      const fixed = await created.update({ httpTools: [], mcpServers: [] });
      assert.equal(fixed.version, 3);
      assert.ok(!('warnings' in JSON.parse(JSON.stringify(fixed))), 'nothing to say: no field');
    });
  });

  describe('with OUTBOUND_ALLOW_PRIVATE naming one host', () => {
    const { api } = useIsolatedStack({ worker: 'inline', env: { OUTBOUND_ALLOW_PRIVATE: '127.0.0.2/32' } });
    let internal: Awaited<ReturnType<typeof localServer>>;
    let allowed: Awaited<ReturnType<typeof localServer>>;
    before(async () => {
      internal = await localServer('127.0.0.1');
      allowed = await localServer('127.0.0.2', internal.url);
    });
    after(async () => {
      await Promise.all([internal.close(), allowed.close()]);
    });

    it('the allowed host is reached, but its redirect to another private address is refused', async () => {
      const events = await ask(api, `/tool web_fetch {"url":"${allowed.url}"}`);
      assert.equal(allowed.hits(), 1, 'the allowed host was fetched');
      assert.equal(internal.hits(), 0, 'the redirect target was never contacted');
      assert.deepEqual(toolEnd(events), { type: 'tool', name: 'web.fetch', state: 'end', ok: false });
      assert.match(JSON.stringify(events.at(-1)), /refused to connect to 127\.0\.0\.1/);
    });

    it('an agent whose tool is at the allowed host has no warning; one at another private address has', async () => {
      const { apiKey } = await api.newWorkspace({ credits: 10 });
      const ws = new Service({ apiKey, baseURL: api.baseURL });
      const agent = await ws.agents.create({ name: 'Allowed', httpTools: [{ name: 'ok', description: 'Allowed', method: 'GET', url: allowed.url }] });
      assert.equal(agent.warnings, undefined);
      const other = await agent.update({ httpTools: [{ name: 'other', description: 'Not allowed', method: 'GET', url: internal.url }] });
      assert.match(other.warnings?.[0] ?? '', /^HTTP tool other: 127\.0\.0\.1 is a private or internal address \(loopback\)/);
    });
  });
});
