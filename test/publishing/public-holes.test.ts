import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { call, type ErrorJson } from '../../harness/http';
import { freelancer, siteRequest } from '../support/publishing';

/** Issue 32's smaller holes on the public side: host names, asset names, deeply nested JSON. */
describe('public holes', () => {
  const api = useTestApi();
  let apiKey: string;
  let token: string;
  let prodURL: string;
  let testURL: string;
  const port = () => new URL(api.baseURL).port;

  before(async () => {
    ({ apiKey } = await api.newWorkspace({ credits: 100 }));
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Host Check' });
    const [v1] = await agent.versionIds();
    const prod = await call<{ url: string }>(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } });
    assert.equal(prod.status, 200, JSON.stringify(prod.body));
    prodURL = prod.body.url;
    const test = await call<{ url: string }>(api.baseURL, 'POST', '/v1/deployments/test', { apiKey, body: { versionId: v1!.id } });
    assert.equal(test.status, 200, JSON.stringify(test.body));
    testURL = test.body.url;
    token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agent.agentId}/public-token`, { apiKey })).body.token;
  });

  describe('hosts under AGENTS_DOMAIN', () => {
    const apiPaths = ['/v1/workspace', '/v1/openapi.json', '/docs', '/metrics', '/healthz', '/embed/v1.js', '/embed/assets/chat.js', '/v1/public/agents/by-token/x'];

    it('names that are neither a slug nor a live test label answer 404 on every path, the API included', async () => {
      const hosts = [`agents.localhost:${port()}`, `a.b.agents.localhost:${port()}`, `x.y.test.agents.localhost:${port()}`, `nobody-here.agents.localhost:${port()}`, `zzzzzzzzzzzzzzzz.test.agents.localhost:${port()}`, `a.b.agents.localhost.:${port()}`, `AGENTS.LOCALHOST..:${port()}`];
      for (const host of hosts) {
        for (const path of ['/', ...apiPaths]) {
          // /metrics is served to loopback callers: the one place a 200 would show the host's reach.
          const res = await siteRequest(api.baseURL, `http://${host}`, { path, headers: { authorization: `Bearer ${apiKey}` } });
          assert.equal(res.status, 404, `${host}${path} answered ${res.status}: ${res.text.slice(0, 120)}`);
        }
      }
      const page = await siteRequest(api.baseURL, `http://agents.localhost:${port()}`);
      assert.match(page.headers['content-type'] ?? '', /text\/html/);
      assert.match(page.text, /Chat not found/);
      assert.doesNotMatch(page.text, /\/embed\/assets\//, 'the 404 page needs nothing the host does not serve');
    });

    it('an agent host serves its page, assets and public API, and nothing of the key API', async () => {
      for (const url of [prodURL, testURL]) {
        assert.equal((await siteRequest(api.baseURL, url)).status, 200, url);
        assert.equal((await siteRequest(api.baseURL, url, { path: '/embed/assets/chat.js' })).status, 200, url);
        for (const path of apiPaths.filter((p) => !p.startsWith('/embed/assets/') && !p.startsWith('/v1/public/'))) {
          const res = await siteRequest(api.baseURL, url, { path, headers: { authorization: `Bearer ${apiKey}` } });
          assert.equal(res.status, 404, `${url}${path} answered ${res.status}`);
        }
      }
      assert.equal((await siteRequest(api.baseURL, prodURL, { path: `/v1/public/agents/by-token/${token}` })).status, 200);
    });

    it('the API keeps answering on its own host', async () => {
      assert.equal((await call(api.baseURL, 'GET', '/v1/workspace', { apiKey })).status, 200);
      assert.equal((await call(api.baseURL, 'GET', '/metrics')).status, 200);
      assert.equal((await call(api.baseURL, 'GET', '/docs')).status, 200);
    });
  });

  it('asset names that are Object.prototype keys answer 404, not 500', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const res = await call<ErrorJson>(api.baseURL, 'GET', `/embed/assets/${name}`);
      assert.equal(res.status, 404, `${name}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  });

  describe('JSON nested deeper than 64', () => {
    const deepArray = '['.repeat(200_000) + ']'.repeat(200_000);
    // About 60,000 characters of objects inside objects.
    const deepObject = '{"a":'.repeat(12_000) + '1' + '}'.repeat(12_000);
    const routes: Array<{ name: string; path: string; auth: () => string }> = [
      { name: 'public chat', path: '/v1/public/chat', auth: () => token },
      { name: 'create agent', path: '/v1/agents', auth: () => apiKey },
    ];
    for (const route of routes) {
      for (const [what, body] of [['a 200,000-deep array', deepArray], ['a 60,000-character nested object', deepObject]] as const) {
        it(`${route.name}: ${what} is 400 body_too_deep`, async () => {
          const res = await call<ErrorJson>(api.baseURL, 'POST', route.path, { apiKey: route.auth(), rawBody: body });
          assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
          assert.equal(res.body.error.code, 'body_too_deep');
          assert.match(res.body.error.message, /64/);
        });
      }
    }

    it('64 deep is still parsed (and then validated); 65 is not', async () => {
      // The body and `user` are two levels: 62 more make 64.
      const nested = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown;
      const at64 = await call<ErrorJson>(api.baseURL, 'POST', '/v1/public/chat', { apiKey: token, body: { content: 'hi', user: { id: 'v', name: nested(62) } } });
      assert.equal(at64.status, 400);
      assert.equal(at64.body.error.code, 'invalid_request', 'the validator saw it');
      const at65 = await call<ErrorJson>(api.baseURL, 'POST', '/v1/public/chat', { apiKey: token, body: { content: 'hi', user: { id: 'v', name: nested(63) } } });
      assert.equal(at65.body.error.code, 'body_too_deep');
    });

    it('brackets inside strings do not count', async () => {
      const res = await call<ErrorJson>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Brackets', role: 'freelancer', instructions: '[{'.repeat(5000) } });
      assert.equal(res.status, 201, JSON.stringify(res.body).slice(0, 300));
    });
  });
});
