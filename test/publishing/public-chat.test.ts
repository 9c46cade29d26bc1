import assert from 'node:assert/strict';
import { startTestApi, useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../../harness/http';
import { freelancer, publicChat, siteRequest } from '../support/publishing';
import { collectTurn } from '../support/sse';

/** What visitors of a published agent reach without an API key: metadata, chat, history, resuming, limits. */
describe('public chat', () => {
  const config = () => ({ ...fixture().config, PUBLIC_CHAT_PER_VISITOR: 4, PUBLIC_CHAT_PER_ADDRESS: 10_000, PUBLIC_RATE_WINDOW_SECONDS: 60 });
  const api = useTestApi(() => ({ config: config() }));
  let apiKey: string;
  let workspaceId: string;
  let agentId: string;
  let token: string;

  before(async () => {
    const ws = await api.newWorkspace({ credits: 1000 });
    ({ apiKey } = ws);
    workspaceId = ws.workspace.id;
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Front Desk', instructions: 'SECRET INSTRUCTIONS' });
    agentId = agent.agentId;
    const [v1] = await agent.versionIds();
    const deployed = await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } });
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agentId}/public-token`, { apiKey })).body.token;
  });

  it('public metadata: by token and by id, nothing private; 404 for agents not deployed to prod', async () => {
    const byToken = await call(api.baseURL, 'GET', `/v1/public/agents/by-token/${token}`);
    assert.deepEqual(byToken.body, { agentId, name: 'Front Desk' });
    const meta = await call(api.baseURL, 'GET', `/v1/public/agents/${agentId}`);
    assert.deepEqual(meta.body, { agentId, name: 'Front Desk', greeting: 'Hi! How can I help?', allowedOrigins: [] });
    assert.doesNotMatch(JSON.stringify(meta.body), /SECRET/);

    const hidden = await freelancer(api.baseURL, apiKey, { name: 'Draft' });
    const [v1] = await hidden.versionIds();
    await call(api.baseURL, 'POST', '/v1/deployments/test', { apiKey, body: { versionId: v1!.id } });
    for (const path of [`/v1/public/agents/${hidden.agentId}`, '/v1/public/agents/agt_nosuchagent', `/v1/public/agents/by-token/agt_pk_${'0'.repeat(32)}`]) {
      const r = await call<ErrorJson>(api.baseURL, 'GET', path);
      assert.equal(r.status, 404, path);
      assert.equal(r.body.error.code, 'agent_not_found');
    }
  });

  it('continuity by (agent, user.id): same id continues, another id starts anew; the owner sees who they are', async () => {
    const ada = { id: 'ada-1', name: 'Ada', email: 'ada@example.com' };
    const first = await publicChat(api.baseURL, token, 'first from Ada', ada);
    assert.equal(first.status, 200);
    assert.deepEqual(first.events.map((e) => e.event.type).filter((t) => t !== 'text'), ['start', 'done']);
    const second = await publicChat(api.baseURL, token, 'second from Ada', ada);
    assert.equal(second.headers.get('x-conversation-id'), first.headers.get('x-conversation-id'));
    const bob = await publicChat(api.baseURL, token, 'hello from Bob', { id: 'bob-1' });
    assert.notEqual(bob.headers.get('x-conversation-id'), first.headers.get('x-conversation-id'));

    const history = await call<{ data: Array<{ role: string; content: string }>; runningTurnId: null }>(
      api.baseURL, 'GET', '/v1/public/chat/messages?userId=ada-1', { headers: { authorization: `Bearer ${token}` } },
    );
    assert.deepEqual(history.body.data.filter((m) => m.role === 'user').map((m) => m.content), ['first from Ada', 'second from Ada']);
    assert.equal(history.body.runningTurnId, null);
    const none = await call<{ data: unknown[] }>(api.baseURL, 'GET', '/v1/public/chat/messages?userId=nobody', { headers: { authorization: `Bearer ${token}` } });
    assert.deepEqual(none.body.data, []);

    const listed = (await call<{ data: Array<{ id: string; channel?: string; endUser?: unknown }> }>(api.baseURL, 'GET', `/v1/agents/${agentId}/conversations`, { apiKey })).body.data;
    const adas = listed.find((c) => c.id === first.headers.get('x-conversation-id'));
    assert.deepEqual([adas?.channel, adas?.endUser], ['public', { ...ada, verified: false }]);
  });

  it('a dropped stream resumes with the token and the same user id, and not with another', async () => {
    const user = { id: 'resumer' };
    const partial = await collectTurn(`${api.baseURL}/v1/public/chat`, { method: 'POST', apiKey: token, body: { content: 'one two three four five six', user }, stopAfter: 2 });
    const turnId = partial.headers.get('x-turn-id')!;
    const last = partial.events.at(-1)!.seq;
    const rest = await collectTurn(`${api.baseURL}/v1/public/turns/${turnId}/events?userId=resumer`, { method: 'GET', apiKey: token, lastEventId: last });
    assert.equal(rest.status, 200);
    assert.equal(rest.events[0]!.seq, last + 1, 'nothing lost or repeated');
    assert.equal(rest.events.at(-1)!.event.type, 'done');
    const other = await collectTurn(`${api.baseURL}/v1/public/turns/${turnId}/events?userId=someone-else`, { method: 'GET', apiKey: token, lastEventId: 0 });
    assert.equal(other.status, 404);
    assert.equal((other.errorBody as ErrorJson).error.code, 'turn_not_found');
  });

  it('CORS is open on public routes (preflight included) and never on key routes', async () => {
    const preflight = await fetch(`${api.baseURL}/v1/public/chat`, {
      method: 'OPTIONS',
      headers: { origin: 'http://shop.localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/i);
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    const chat = await publicChat(api.baseURL, token, 'cors', { id: 'cors' });
    assert.equal(chat.headers.get('access-control-allow-origin'), '*');
    assert.match(chat.headers.get('access-control-expose-headers') ?? '', /X-Turn-Id/);

    const keyPreflight = await fetch(`${api.baseURL}/v1/agents`, { method: 'OPTIONS', headers: { origin: 'http://shop.localhost:3000', 'access-control-request-method': 'GET' } });
    assert.equal(keyPreflight.headers.get('access-control-allow-origin'), null);
    const keyGet = await fetch(`${api.baseURL}/v1/agents`, { headers: { origin: 'http://shop.localhost:3000', authorization: `Bearer ${apiKey}` } });
    assert.equal(keyGet.status, 200);
    assert.equal(keyGet.headers.get('access-control-allow-origin'), null);
  });

  it('bad tokens and bodies: 401 with stable codes, 400 naming the field, nothing written', async () => {
    const none = await call<ErrorJson>(api.baseURL, 'POST', '/v1/public/chat', { body: { content: 'x', user: { id: 'u' } } });
    assert.deepEqual([none.status, none.body.error.code], [401, 'missing_public_token']);
    const bad = await call<ErrorJson>(api.baseURL, 'POST', '/v1/public/chat', { body: { content: 'x', user: { id: 'u' } }, headers: { authorization: 'Bearer sk_notatoken' } });
    assert.deepEqual([bad.status, bad.body.error.code], [401, 'invalid_public_token']);
    const before = await api.db('conversations').where({ agent_id: agentId }).count<{ count: number }[]>('* as count');
    const cases: Array<[unknown, string]> = [
      [{ content: 'x' }, 'body.user'],
      [{ content: '', user: { id: 'u' } }, 'body.content'],
      [{ content: 'x', user: { id: '' } }, 'body.user.id'],
      [{ content: 'x', user: { id: 'u\u0000' } }, 'body.user.id'],
      [{ content: 'bad \ud800 surrogate', user: { id: 'u' } }, 'body.content'],
      [{ content: 'x', user: { id: 'u', admin: true } }, 'body.user.admin'],
    ];
    for (const [body, field] of cases) {
      const r = await call<ErrorJson>(api.baseURL, 'POST', '/v1/public/chat', { body, headers: { authorization: `Bearer ${token}` } });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(r.body.error.message.startsWith(`${field}:`), `${JSON.stringify(body)} → ${r.body.error.message}`);
    }
    const after = await api.db('conversations').where({ agent_id: agentId }).count<{ count: number }[]>('* as count');
    assert.deepEqual(after, before);
  });

  it('flooding one visitor gets 429 with Retry-After on every replica while other visitors still chat', async () => {
    const flood = { id: 'flooder' };
    const replica = await startTestApi({ config: config() });
    try {
      const statuses: number[] = [];
      let refusal: { headers: Headers; errorBody?: unknown } | undefined;
      for (let i = 0; i < 6; i++) {
        const r = await publicChat(i % 2 ? replica.baseURL : api.baseURL, token, `flood ${i}`, flood);
        statuses.push(r.status);
        if (r.status === 429) refusal ??= r;
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429], 'the limit of 4 is shared by both replicas');
      const retryAfter = Number(refusal!.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal((refusal!.errorBody as ErrorJson).error.code, 'rate_limited');
      assert.equal((refusal!.errorBody as ErrorJson).error.retryAfter, retryAfter);
      const other = await publicChat(replica.baseURL, token, 'I am patient', { id: 'someone-calm' });
      assert.equal(other.events.at(-1)?.event.type, 'done');
    } finally {
      await replica.stop();
    }
  });

  it('one client address is limited across visitor ids; other addresses still chat', async () => {
    // Behind a proxy: only then is X-Forwarded-For the client's address.
    const limited = await startTestApi({ config: { ...config(), PUBLIC_CHAT_PER_ADDRESS: 3, TRUST_PROXY: true } });
    try {
      const from = (address: string, id: string) =>
        call<ErrorJson>(limited.baseURL, 'POST', '/v1/public/chat', {
          body: { content: 'hi', user: { id } },
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
        });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await from('203.0.113.7', `rotating-${i}`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      assert.equal((await from('198.51.100.2', 'elsewhere')).status, 200);
    } finally {
      await limited.stop();
    }
  });

  it("a message the address limit refuses costs the visitor nothing: their own budget is intact elsewhere", async () => {
    // Visitors allowed 4 messages, an address 3: the visitor's fourth, refused at a crowded address, still goes from another.
    const limited = await startTestApi({ config: { ...config(), PUBLIC_CHAT_PER_ADDRESS: 3, TRUST_PROXY: true } });
    try {
      const from = (address: string) =>
        call<ErrorJson>(limited.baseURL, 'POST', '/v1/public/chat', {
          body: { content: 'hi', user: { id: 'commuter' } },
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
        });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await from('203.0.113.9')).status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429], 'the address allows 3');
      const elsewhere = await from('198.51.100.9');
      assert.equal(elsewhere.status, 200, `the visitor's fourth message from another address: ${JSON.stringify(elsewhere.body)}`);
      const fifth = await from('198.51.100.10');
      assert.equal(fifth.status, 429, 'and their fifth is over their own limit of 4');
      assert.match(fifth.body.error.message, /messages from this visitor/);
    } finally {
      await limited.stop();
    }
  });

  it('an empty balance gives the visitor a polite error event, not a hang or a 409', async () => {
    await api.db('workspaces').where({ id: workspaceId }).update({ credits: 0 });
    try {
      const r = await publicChat(api.baseURL, token, 'anyone there?', { id: 'broke' });
      assert.equal(r.status, 200);
      assert.equal(r.events.length, 1);
      assert.equal(r.events[0]!.event.type, 'error');
      assert.match((r.events[0]!.event as { message: string }).message, /cannot answer right now/);
    } finally {
      await api.db('workspaces').where({ id: workspaceId }).update({ credits: 1000 });
    }
  });

  it('the production host serves the hosted page and the chat; other paths there are 404', async () => {
    const url = (await call<{ url: string }>(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: (await call<{ data: Array<{ id: string }> }>(api.baseURL, 'GET', `/v1/agents/${agentId}/deployments`, { apiKey })).body.data[0]!.id } })).body.url;
    assert.equal(url, `http://front-desk.agents.localhost:${new URL(api.baseURL).port}`);
    const page = await siteRequest(api.baseURL, url);
    assert.equal(page.status, 200);
    assert.match(page.text, /<title>Front Desk<\/title>/);
    assert.ok(page.text.includes(token), 'the page carries the token it chats with');
    assert.equal((await siteRequest(api.baseURL, url, { path: '/v1/files/anything' })).status, 404);
    assert.equal((await siteRequest(api.baseURL, 'http://nobody-here.agents.localhost:1')).status, 404);
    // The embed script travels gzipped within its 4 KB budget.
    const script = await siteRequest(api.baseURL, api.baseURL, { path: '/embed/v1.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(script.status, 200);
    assert.equal(script.headers['content-encoding'], 'gzip');
    assert.ok(Number(script.headers['content-length']) <= 4096, `v1.js is ${script.headers['content-length']} bytes on the wire`);
  });
});
