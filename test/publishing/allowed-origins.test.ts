import assert from 'node:assert/strict';
import { Service } from '../../sdk/src';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../../harness/http';
import { freelancer, siteRequest } from '../support/publishing';
import { expectFailure } from '../support/sdk';

const SHOP = 'http://shop.localhost:3000';
const ELSEWHERE = 'https://evil.example';

/**
 * Allowed origins (docs/publishing.md): the owner's list, then CORS and refusals on the public
 * routes as a browser on a listed and on another site meets them, against the real API.
 */
describe('allowed origins', () => {
  const api = useTestApi(() => ({ config: { ...fixture().config, PUBLIC_CHAT_PER_VISITOR: 1000, PUBLIC_CHAT_PER_ADDRESS: 10_000 } }));
  let apiKey: string;
  let agentId: string;
  let token: string;
  let prodURL: string;
  let testURL: string;

  before(async () => {
    ({ apiKey } = await api.newWorkspace({ credits: 1000 }));
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Gatekeeper' });
    agentId = agent.agentId;
    const [v1] = await agent.versionIds();
    const prod = await call<{ url: string }>(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } });
    assert.equal(prod.status, 200, JSON.stringify(prod.body));
    prodURL = prod.body.url;
    testURL = (await call<{ url: string }>(api.baseURL, 'POST', '/v1/deployments/test', { apiKey, body: { versionId: v1!.id } })).body.url;
    token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agentId}/public-token`, { apiKey })).body.token;
  });

  const setOrigins = (origins: string[]) => new Service({ apiKey, baseURL: api.baseURL }).agent(agentId).setAllowedOrigins(origins);
  const chat = (origin: string | undefined, userId: string) =>
    call<string | ErrorJson>(api.baseURL, 'POST', '/v1/public/chat', {
      body: { content: 'hello', user: { id: userId } },
      headers: { authorization: `Bearer ${token}`, ...(origin ? { origin } : {}) },
    });
  const history = (origin: string, userId: string) =>
    call<ErrorJson>(api.baseURL, 'GET', `/v1/public/chat/messages?userId=${userId}`, { headers: { authorization: `Bearer ${token}`, origin } });
  /** Rows a refused request must not have written: conversations and turns of the agent. */
  const written = async () => {
    const [conversations] = await api.db('conversations').where({ agent_id: agentId }).count<{ count: string }[]>('* as count');
    const [turns] = await api.db('turns').where({ agent_id: agentId }).count<{ count: string }[]>('* as count');
    return { conversations: Number(conversations!.count), turns: Number(turns!.count) };
  };

  it('the owner sets the list through the SDK: normalised, deduplicated, strict; bad input is 400 naming the field and changes nothing', async () => {
    const ws = new Service({ apiKey, baseURL: api.baseURL });
    const agent = ws.agent(agentId);
    assert.deepEqual(await agent.allowedOrigins(), []);
    const stored = await agent.setAllowedOrigins(['HTTPS://Shop.Example.com:443', 'https://shop.example.com', 'http://localhost:8080', 'https://bücher.de', 'http://[::1]:3000']);
    assert.deepEqual(stored, ['https://shop.example.com', 'http://localhost:8080', 'https://xn--bcher-kva.de', 'http://[::1]:3000']);
    assert.deepEqual(await agent.allowedOrigins(), stored);

    const bad = [
      'https://shop.example.com/',
      'https://shop.example.com/path',
      'https://shop.example.com?q=1',
      'https://shop.example.com#x',
      'ftp://shop.example.com',
      'shop.example.com',
      'https://user@shop.example.com',
      'https://*.example.com',
      'null',
      'https://shop..example.com',
      `https://${'a'.repeat(300)}.com`,
    ];
    for (const origin of bad) {
      const r = await call<ErrorJson>(api.baseURL, 'PUT', `/v1/agents/${agentId}/allowed-origins`, { apiKey, body: { origins: ['https://ok.example', origin] } });
      assert.equal(r.status, 400, origin);
      assert.equal(r.body.error.code, 'invalid_request');
      assert.ok(r.body.error.message.startsWith('body.origins[1]:'), `${origin} → ${r.body.error.message}`);
    }
    const many = Array.from({ length: 101 }, (_, i) => `https://s${i}.example`);
    const tooMany = await call<ErrorJson>(api.baseURL, 'PUT', `/v1/agents/${agentId}/allowed-origins`, { apiKey, body: { origins: many } });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.error.message, /^body\.origins: at most 100/);
    assert.deepEqual(await agent.allowedOrigins(), stored, 'nothing changed');

    const other = await api.newWorkspace();
    await expectFailure(new Service({ apiKey: other.apiKey, baseURL: api.baseURL }).agent(agentId).setAllowedOrigins([]), 404, 'agent_not_found');
    assert.deepEqual(await agent.setAllowedOrigins([]), []);
  });

  it('an empty list is the default: any origin chats and gets `*`', async () => {
    await setOrigins([]);
    const r = await chat(ELSEWHERE, 'open-1');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
  });

  it('a listed origin gets itself back with Vary: Origin; the preflight works; metadata names the list', async () => {
    await setOrigins([SHOP]);
    const preflight = await fetch(`${api.baseURL}/v1/public/chat`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.ok(['*', SHOP].includes(preflight.headers.get('access-control-allow-origin') ?? ''));
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/i);

    const r = await chat(SHOP, 'shop-1');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.headers.get('access-control-allow-origin'), SHOP);
    assert.match(r.headers.get('vary') ?? '', /Origin/i);
    assert.match(r.headers.get('access-control-expose-headers') ?? '', /X-Turn-Id/);
    const h = await history(SHOP, 'shop-1');
    assert.equal(h.status, 200);
    assert.equal(h.headers.get('access-control-allow-origin'), SHOP);

    const meta = await call<{ allowedOrigins: string[] }>(api.baseURL, 'GET', `/v1/public/agents/${agentId}`, { headers: { origin: ELSEWHERE } });
    assert.deepEqual(meta.body.allowedOrigins, [SHOP]);
    assert.equal(meta.headers.get('access-control-allow-origin'), '*', 'the embed anywhere can read why it must not boot');
  });

  it('another origin is refused: 401 origin_not_allowed, no CORS grant, nothing written; chat, history and resuming alike', async () => {
    await setOrigins([SHOP]);
    const before = await written();
    for (const origin of [ELSEWHERE, 'http://shop.localhost:3001', 'null']) {
      const r = await chat(origin, 'intruder');
      assert.equal(r.status, 401, `${origin}: ${JSON.stringify(r.body)}`);
      assert.equal((r.body as ErrorJson).error.code, 'origin_not_allowed');
      assert.equal(r.headers.get('access-control-allow-origin'), null, origin);
    }
    assert.deepEqual(await written(), before, 'no conversation or turn was written');

    const h = await history(ELSEWHERE, 'shop-1');
    assert.deepEqual([h.status, h.body.error.code, h.headers.get('access-control-allow-origin')], [401, 'origin_not_allowed', null]);
    const turnId = (await chat(SHOP, 'shop-2')).headers.get('x-turn-id');
    const resume = await call<ErrorJson>(api.baseURL, 'GET', `/v1/public/turns/${turnId}/events?userId=shop-2`, {
      headers: { authorization: `Bearer ${token}`, origin: ELSEWHERE, 'last-event-id': '0' },
    });
    assert.deepEqual([resume.status, resume.body.error.code], [401, 'origin_not_allowed']);

    // The test host's page is refused elsewhere too (there the host, not a token, names the agent).
    const onTestHost = await siteRequest(api.baseURL, testURL, {
      method: 'POST', path: '/v1/public/chat', body: { content: 'hi', user: { id: 'intruder' } }, headers: { origin: ELSEWHERE },
    });
    assert.equal(onTestHost.status, 401, onTestHost.text);
    assert.deepEqual(await written(), { ...before, conversations: before.conversations + 1, turns: before.turns + 1 }, 'only the listed origin\'s chat');
  });

  it('our own pages still chat: the API origin (hosted page) and the agent hosts; a request with no Origin is not a browser’s and passes', async () => {
    await setOrigins([SHOP]);
    assert.equal((await chat(api.baseURL, 'own-1')).status, 200);
    assert.equal((await chat(new URL(prodURL).origin, 'own-2')).status, 200);
    const onTestHost = await siteRequest(api.baseURL, testURL, {
      method: 'POST', path: '/v1/public/chat', body: { content: 'hi', user: { id: 'own-3' } }, headers: { origin: new URL(testURL).origin },
    });
    assert.equal(onTestHost.status, 200, onTestHost.text);
    assert.equal((await chat(undefined, 'curl-1')).status, 200);
  });

  it('the hosted page may be framed only by the listed origins and itself; a change applies at once', async () => {
    await setOrigins([SHOP, 'https://www.shop.example']);
    const framed = await fetch(`${api.baseURL}/embed/${agentId}`);
    assert.match(framed.headers.get('content-security-policy') ?? '', /frame-ancestors 'self' http:\/\/shop\.localhost:3000 https:\/\/www\.shop\.example(;|$)/);
    const prodPage = await siteRequest(api.baseURL, prodURL);
    assert.match(String(prodPage.headers['content-security-policy']), /frame-ancestors 'self' http:\/\/shop\.localhost:3000 /);

    await setOrigins([]);
    const open = await fetch(`${api.baseURL}/embed/${agentId}`);
    assert.match(open.headers.get('content-security-policy') ?? '', /frame-ancestors \*/);
    assert.equal((await chat(ELSEWHERE, 'later')).status, 200, 'no deploy, no cache: the next request sees the change');
  });
});
