import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { type AgentHandle, signVisitorToken, type WorkspaceClient } from '../../sdk/src';
import { call, type ErrorJson } from '../../harness/http';
import { siteRequest } from '../support/publishing';
import { collectTurn } from '../support/sse';
import { useIsolatedStack } from '../support/isolated-stack';

/** A local API the agent's HTTP tool calls: it records the credentials each request carried. */
async function startEchoServer(): Promise<{ url: string; seen: Array<{ authorization?: string; pin?: string }>; close(): Promise<void> }> {
  const seen: Array<{ authorization?: string; pin?: string }> = [];
  const server = http.createServer((req, res) => {
    seen.push({ authorization: req.headers.authorization, pin: req.headers['x-pin'] as string | undefined });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

const ALICE_TOKEN = `alice-oauth-${Math.random().toString(36).slice(2)}`;
const ALICE_PIN = `alice-pin-${Math.random().toString(36).slice(2)}`;

/**
 * Item 1 and 2 of issue 32: a visitor who types another person's id gets nothing of theirs; only
 * a visitor whose token the customer's backend signed with the agent's identity secret acts as
 * that end user. Real API, worker, PostgreSQL and Temporal; an echo server stands for the API the
 * end user's token opens.
 */
describe('verified visitor identity', function () {
  this.timeout(120_000);
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let ws: WorkspaceClient;
  let apiKey: string;
  let agent: AgentHandle;
  let token: string;

  const chat = (user: Record<string, string>, content = '/tool whoami {}', base = api.baseURL) =>
    collectTurn(`${base}/v1/public/chat`, { method: 'POST', apiKey: token, body: { content, user } });
  const history = (userId: string, visitorToken?: string) =>
    call<{ data: Array<{ role: string; content: string }> } & ErrorJson>(api.baseURL, 'GET', `/v1/public/chat/messages?userId=${encodeURIComponent(userId)}`, {
      headers: { authorization: `Bearer ${token}`, ...(visitorToken ? { 'x-visitor-token': visitorToken } : {}) },
    });
  const aliceCalls = () => echo.seen.filter((s) => s.authorization === `Bearer ${ALICE_TOKEN}` || s.pin === ALICE_PIN);
  const written = async () => {
    const [c] = await api.db('conversations').where({ agent_id: agent.id }).count<Array<{ count: string }>>('* as count');
    const [m] = await api.db('messages as m').join('conversations as c', 'c.id', 'm.conversation_id').where({ 'c.agent_id': agent.id }).count<Array<{ count: string }>>('* as count');
    return [Number(c?.count), Number(m?.count)];
  };

  const stack = useIsolatedStack({
    worker: 'inline',
    env: async () => {
      echo = await startEchoServer();
      return {
        OUTBOUND_ALLOW_PRIVATE: '127.0.0.1/32',
        // A provider whose consent flow is only started here (its URLs are never followed).
        OAUTH_PROVIDERS: JSON.stringify({ acme: { clientId: 'c', clientSecret: 's', authorizeUrl: `${echo.url}/auth`, tokenUrl: `${echo.url}/token` } }),
      };
    },
  });
  const { api } = stack;

  before(async () => {
    ({ apiKey, ws } = await stack.workspace(1000));
    const created = await ws.agents.create({
      name: 'Account helper',
      role: 'freelancer',
      secrets: [{ name: 'PIN', scope: 'conversation', required: false }],
      connections: [{ provider: 'acme', scope: 'conversation', required: false }],
      httpTools: [
        {
          name: 'whoami',
          description: "The visitor's account",
          method: 'GET',
          url: `${echo.url}/me`,
          headers: { Authorization: 'Bearer {{connections.acme}}', 'X-Pin': '{{secrets.PIN}}' },
          secrets: ['PIN'],
        },
      ],
    });
    agent = ws.agent(created.id);
    const [v1] = await ws.agents.versions(agent.id);
    await ws.agents.deployToProd(v1!.id);
    token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agent.id}/public-token`, { apiKey })).body.token;
    // What the builder stored for their product's user alice.
    await ws.endUser('alice').attach({ provider: 'acme', accessToken: ALICE_TOKEN });
    await ws.endUser('alice').bind({ secrets: { PIN: ALICE_PIN } });
  });
  after(async () => {
    await echo?.close();
  });

  it("an anonymous visitor who types alice's id: the tool runs without alice's token or secret, and the owner sees an unverified visitor", async () => {
    const before = echo.seen.length;
    const r = await chat({ id: 'alice' });
    assert.equal(r.status, 200);
    assert.equal(r.events.at(-1)?.event.type, 'done');
    assert.ok(echo.seen.length > before || r.events.some((e) => e.event.type === 'tool'), 'the tool was called');
    assert.deepEqual(aliceCalls(), [], "the echo server never received alice's token or PIN");
    const record = await agent.conversation(r.headers.get('x-conversation-id')!).get();
    assert.deepEqual(record.endUser, { id: 'alice', verified: false });
    assert.deepEqual(await ws.endUser('alice').conversations(), [], "an anonymous visitor's conversation is not alice's");
    // An authorize started from it binds to that conversation alone, not to alice.
    await ws.conversation(record.id).authorize('acme');
    const [state] = await api.db('oauth_states').orderBy('created_at', 'desc').limit(1);
    assert.deepEqual([state.owner_kind, state.owner_id, state.end_user_id], ['conversation', record.id, null]);
  });

  it('a visitor with a token signed by the agent\'s identity secret is alice: the tool gets her token, in a session of its own', async () => {
    const { secret } = await agent.rotateVisitorSecret();
    assert.match(secret, /^agt_vs_[0-9a-z]{43}$/);
    assert.equal((await agent.setVisitorIdentity('either')).mode, 'either');
    const signed = await signVisitorToken({ secret, id: 'alice', name: 'Alice', email: 'alice@example.com', expiresIn: 300 });

    const anonymous = await chat({ id: 'alice' }, 'hello anonymously');
    const verified = await chat({ id: 'alice', name: 'Mallory', token: signed });
    assert.equal(verified.status, 200, JSON.stringify(verified.errorBody));
    assert.equal(verified.events.at(-1)?.event.type, 'done');
    assert.deepEqual(aliceCalls(), [{ authorization: `Bearer ${ALICE_TOKEN}`, pin: ALICE_PIN }], "alice's values reached the tool, once");
    const conversationId = verified.headers.get('x-conversation-id')!;
    assert.notEqual(conversationId, anonymous.headers.get('x-conversation-id'), 'a separate session');
    assert.deepEqual((await agent.conversation(conversationId).get()).endUser, { id: 'alice', name: 'Alice', email: 'alice@example.com', verified: true });
    assert.deepEqual((await ws.endUser('alice').conversations()).map((c) => c.id), [conversationId]);

    // Her history: only with the token; the anonymous "alice" reads the anonymous session.
    assert.deepEqual((await history('alice', signed)).body.data.filter((m) => m.role === 'user').map((m) => m.content), ['/tool whoami {}']);
    assert.deepEqual((await history('alice')).body.data.filter((m) => m.role === 'user').map((m) => m.content), ['/tool whoami {}', 'hello anonymously']);
    // Resuming her turn: without the token it is not the visitor's.
    const turnId = verified.headers.get('x-turn-id')!;
    const stranger = await collectTurn(`${api.baseURL}/v1/public/turns/${turnId}/events?userId=alice`, { method: 'GET', apiKey: token, lastEventId: 0 });
    assert.deepEqual([stranger.status, (stranger.errorBody as ErrorJson).error.code], [404, 'turn_not_found']);
    const res = await fetch(`${api.baseURL}/v1/public/turns/${turnId}/events?userId=alice`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': '0', 'x-visitor-token': signed },
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /event: done/);

    // An authorize started from her conversation belongs to alice.
    await ws.conversation(conversationId).authorize('acme');
    const [state] = await api.db('oauth_states').orderBy('created_at', 'desc').limit(1);
    assert.deepEqual([state.owner_kind, state.end_user_id], ['end_user', 'alice']);
  });

  it('forged, expired, mismatched, unsigned or malformed tokens: 401 invalid_visitor_token, and nothing is written', async () => {
    const { secret } = await agent.rotateVisitorSecret({ graceSeconds: 0 });
    const before = await written();
    const seen = echo.seen.length;
    const now = Math.floor(Date.now() / 1000);
    const forged = await signVisitorToken({ secret: `agt_vs_${'x'.repeat(43)}`, id: 'alice' });
    const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('alice').setExpirationTime(now - 120).sign(new TextEncoder().encode(secret));
    const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('alice').sign(new TextEncoder().encode(secret));
    const bob = await signVisitorToken({ secret, id: 'bob' });
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'alice', exp: now + 600 })).toString('base64url')}.`;
    for (const [name, t] of [['forged', forged], ['expired', expired], ['no exp', noExp], ['sub bob', bob], ['alg none', unsigned], ['garbage', 'not-a-jwt']] as const) {
      const r = await chat({ id: 'alice', token: t });
      assert.equal(r.status, 401, name);
      assert.equal((r.errorBody as ErrorJson).error.code, 'invalid_visitor_token', name);
      assert.match((r.errorBody as ErrorJson).error.message, /^body\.user\.token: /, name);
      const h = await history('alice', t);
      assert.deepEqual([h.status, h.body.error.code], [401, 'invalid_visitor_token'], `history, ${name}`);
    }
    assert.deepEqual(await written(), before, 'no conversation or message written');
    assert.equal(echo.seen.length, seen);
  });

  it('a token lives at most 24 h, is not issued in the future, and its sub is compared exactly as signed: each a 401 naming the claim', async () => {
    const { secret } = await agent.rotateVisitorSecret({ graceSeconds: 0 });
    await agent.setVisitorIdentity('either');
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: { sub: string; exp: number; iat?: number }) => {
      const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(claims.sub).setExpirationTime(claims.exp);
      return (claims.iat === undefined ? jwt : jwt.setIssuedAt(claims.iat)).sign(new TextEncoder().encode(secret));
    };
    const before = await written();
    const refused: Array<[string, string, RegExp]> = [
      ['exp ten years ahead', await sign({ sub: 'alice', exp: now + 10 * 365 * 86_400, iat: now }), /^body\.user\.token: claim exp: more than 24 h ahead/],
      ['sub " alice " for alice', await signVisitorToken({ secret, id: ' alice ' }), /^body\.user\.token: claim sub: must not start or end with whitespace/],
      ['iat an hour ahead', await sign({ sub: 'alice', exp: now + 7200, iat: now + 3600 }), /^body\.user\.token: claim iat: in the future/],
    ];
    for (const [name, t, message] of refused) {
      const r = await chat({ id: 'alice', token: t }, 'hi');
      assert.equal(r.status, 401, name);
      assert.equal((r.errorBody as ErrorJson).error.code, 'invalid_visitor_token', name);
      assert.match((r.errorBody as ErrorJson).error.message, message, name);
      const h = await history('alice', t);
      assert.deepEqual([h.status, h.body.error.code], [401, 'invalid_visitor_token'], `history, ${name}`);
    }
    assert.deepEqual(await written(), before, 'no conversation or message written');
    // At the bounds: exp 24 h ahead, iat within the clock tolerance; and a token as the SDK signs it.
    assert.equal((await history('alice', await sign({ sub: 'alice', exp: now + 86_400, iat: now + 10 }))).status, 200);
    const ok = await chat({ id: 'alice', token: await signVisitorToken({ secret, id: 'alice' }) }, 'hi');
    assert.equal(ok.status, 200, JSON.stringify(ok.errorBody));
    assert.equal(ok.events.at(-1)?.event.type, 'done');
  });

  it('rotation: the previous secret verifies during its grace period, then not; grace 0 stops it at once', async () => {
    const first = await agent.rotateVisitorSecret({ graceSeconds: 0 });
    const old = await signVisitorToken({ secret: first.secret, id: 'alice' });
    const second = await agent.rotateVisitorSecret({ graceSeconds: 600 });
    assert.ok(second.previousSecretValidUntil && Date.parse(second.previousSecretValidUntil) > Date.now() + 590_000);
    assert.equal((await history('alice', old)).status, 200, 'the old secret still verifies');
    assert.equal((await history('alice', await signVisitorToken({ secret: second.secret, id: 'alice' }))).status, 200);
    const third = await agent.rotateVisitorSecret({ graceSeconds: 0 });
    assert.equal(third.previousSecretValidUntil, null);
    assert.equal((await history('alice', await signVisitorToken({ secret: second.secret, id: 'alice' }))).status, 401, 'grace 0: replaced at once');
    const identity = await agent.visitorIdentity();
    assert.deepEqual(Object.keys(identity).sort(), ['agentId', 'mode', 'previousSecretValidUntil', 'secretCreatedAt']);
    assert.doesNotMatch(JSON.stringify(identity), /agt_vs_/);
    const [row] = await api.db('visitor_identities').where({ agent_id: agent.id });
    assert.equal(Buffer.from(row.secret_sealed).includes(third.secret), false, 'sealed at rest');
  });

  it('mode verified: a visitor without a token is refused with 401 visitor_token_required; anonymous: tokens are refused', async () => {
    const { secret } = await agent.rotateVisitorSecret({ graceSeconds: 0 });
    await agent.setVisitorIdentity('verified');
    const before = await written();
    const r = await chat({ id: 'someone' });
    assert.deepEqual([r.status, (r.errorBody as ErrorJson).error.code], [401, 'visitor_token_required']);
    assert.deepEqual([(await history('someone')).status, (await history('someone')).body.error.code], [401, 'visitor_token_required']);
    assert.deepEqual(await written(), before);
    const ok = await chat({ id: 'carol', token: await signVisitorToken({ secret, id: 'carol' }) }, 'hi');
    assert.equal(ok.events.at(-1)?.event.type, 'done');

    await agent.setVisitorIdentity('anonymous');
    const refused = await chat({ id: 'carol', token: await signVisitorToken({ secret, id: 'carol' }) }, 'hi');
    assert.equal(refused.status, 400);
    assert.match((refused.errorBody as ErrorJson).error.message, /^body\.user\.token: .*anonymous/);
  });

  it('a test deployment follows the same rules: no token in verified mode is 401; a signed alice gets her token', async () => {
    const { secret } = await agent.rotateVisitorSecret({ graceSeconds: 0 });
    await agent.setVisitorIdentity('verified');
    const [v1] = await ws.agents.versions(agent.id);
    const { url } = await ws.agents.deployToTest(v1!.id);
    const body = (user: Record<string, string>) => ({ content: '/tool whoami {}', user });
    const refused = await siteRequest(api.baseURL, url, { method: 'POST', path: '/v1/public/chat', body: body({ id: 'alice' }) });
    assert.equal(refused.status, 401);
    assert.equal((JSON.parse(refused.text) as ErrorJson).error.code, 'visitor_token_required');
    const calls = aliceCalls().length;
    const signed = await siteRequest(api.baseURL, url, { method: 'POST', path: '/v1/public/chat', body: body({ id: 'alice', token: await signVisitorToken({ secret, id: 'alice' }) }) });
    assert.equal(signed.status, 200, signed.text);
    assert.match(signed.text, /event: done/);
    assert.equal(aliceCalls().length, calls + 1);
    await agent.setVisitorIdentity('either');
    await siteRequest(api.baseURL, url, { method: 'POST', path: '/v1/public/chat', body: body({ id: 'alice' }) });
    assert.equal(aliceCalls().length, calls + 1, 'an anonymous alice on the test URL gets nothing of hers');
  });

  it('settings: verified needs a secret first; bad input is 400 naming the field; another workspace gets 404', async () => {
    const fresh = ws.agent((await ws.agents.create({ name: 'No secret yet' })).id);
    assert.deepEqual(await fresh.visitorIdentity(), { agentId: fresh.id, mode: 'anonymous', secretCreatedAt: null, previousSecretValidUntil: null });
    const r = await call<ErrorJson>(api.baseURL, 'PUT', `/v1/agents/${fresh.id}/visitor-identity`, { apiKey, body: { mode: 'verified' } });
    assert.deepEqual([r.status, r.body.error.code], [400, 'invalid_request']);
    assert.match(r.body.error.message, /^body\.mode: /);
    const bad = await call<ErrorJson>(api.baseURL, 'PUT', `/v1/agents/${fresh.id}/visitor-identity`, { apiKey, body: { mode: 'open' } });
    assert.match(bad.body.error.message, /^body\.mode: /);
    const grace = await call<ErrorJson>(api.baseURL, 'POST', `/v1/agents/${fresh.id}/visitor-identity/secret`, { apiKey, body: { graceSeconds: -1 } });
    assert.match(grace.body.error.message, /^body\.graceSeconds: /);
    const other = await api.newWorkspace({ credits: 1 });
    for (const [method, path] of [['GET', 'visitor-identity'], ['POST', 'visitor-identity/secret']] as const) {
      const answer = await call<ErrorJson>(api.baseURL, method, `/v1/agents/${agent.id}/${path}`, { apiKey: other.apiKey, body: method === 'POST' ? {} : undefined });
      assert.deepEqual([answer.status, answer.body.error.code], [404, 'agent_not_found']);
    }
  });
});
