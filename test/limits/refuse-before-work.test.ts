import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { type RunningApi, startTestApi, useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { freelancer } from '../support/publishing';
import { call } from '../../harness/http';

/** A well-formed API key, publishable token or host label no one holds. */
const randomKey = () => `sk_${randomBytes(20).toString('hex')}`;
const randomPublicToken = () => `agt_pk_${randomBytes(16).toString('hex')}`;
const randomLabel = () => `x${randomBytes(6).toString('hex')}`;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { error?: { code: string; retryAfter?: number } };
}

/** One request to the API from the local address `from` (any of 127.0.0.0/8 reaches it on loopback). */
function requestFrom(api: RunningApi, from: string, opts: { method?: string; path: string; headers?: Record<string, string>; body?: unknown }): Promise<Answer> {
  const url = new URL(api.baseURL);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        localAddress: from,
        agent: false,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => void (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Answer['body']) : {} }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The queries the API's pool sends while `run` runs (knex's own event: every statement it sends to PostgreSQL). */
async function queriesDuring<T>(api: RunningApi, run: () => Promise<T>): Promise<{ result: T; queries: number }> {
  let queries = 0;
  const count = () => void (queries += 1);
  api.db.on('query', count);
  try {
    return { result: await run(), queries };
  } finally {
    api.db.off('query', count);
  }
}

/**
 * Refused from memory: `ask` from one address `limit` times fails with `failed` and reaches
 * PostgreSQL each time; from then on it is 429 with Retry-After, and no query at all.
 */
async function floodStopsReachingPostgres(api: RunningApi, limit: number, ask: () => Promise<Answer>, failed: number): Promise<void> {
  for (let i = 0; i < limit; i++) {
    const { result, queries } = await queriesDuring(api, ask);
    assert.equal(result.status, failed, JSON.stringify(result.body));
    assert.ok(queries > 0, 'a failure before the limit is looked up');
  }
  const { result: answers, queries } = await queriesDuring(api, async () => {
    const seen: Answer[] = [];
    for (let i = 0; i < 20; i++) seen.push(await ask());
    return seen;
  });
  for (const answer of answers) {
    assert.equal(answer.status, 429, JSON.stringify(answer.body));
    assert.equal(answer.body.error?.code, 'rate_limited');
    assert.ok(Number(answer.headers['retry-after']) >= 1, 'Retry-After is set');
  }
  assert.equal(queries, 0, 'a refused address costs PostgreSQL nothing');
}

const LIMIT = 5;

describe('refuse before working: failed credentials per address, in memory', function () {
  this.timeout(60_000);
  const api = useTestApi(() => ({
    config: { ...fixture().config, AUTH_FAILURES_PER_ADDRESS: LIMIT, AUTH_FAILURES_WINDOW_SECONDS: 60, RATE_LIMIT_HOLD_MS: 0 },
    httpsPort: 0,
  }));

  it('random API keys: after the limit, 429 from memory without a query; another address and a known key go on', async () => {
    const { apiKey } = await api.newWorkspace();
    const known = await requestFrom(api, '127.0.0.2', { path: '/v1/workspace', headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(known.status, 200, JSON.stringify(known.body));

    await floodStopsReachingPostgres(api, LIMIT, () => requestFrom(api, '127.0.0.2', { path: '/v1/agents', headers: { authorization: `Bearer ${randomKey()}` } }), 401);

    const again = await requestFrom(api, '127.0.0.2', { path: '/v1/workspace', headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(again.status, 200, 'a key the process holds is not refused with its address');
    const other = await queriesDuring(api, () => requestFrom(api, '127.0.0.3', { path: '/v1/agents', headers: { authorization: `Bearer ${randomKey()}` } }));
    assert.equal(other.result.status, 401, 'another address is not refused');
    assert.ok(other.queries > 0);
  });

  it('unknown publishable tokens: chat and by-token lookups stop reaching PostgreSQL', async () => {
    await floodStopsReachingPostgres(
      api,
      LIMIT,
      () =>
        requestFrom(api, '127.0.0.4', {
          method: 'POST',
          path: '/v1/public/chat',
          headers: { authorization: `Bearer ${randomPublicToken()}` },
          body: { content: 'hello', user: { id: 'visitor' } },
        }),
      401,
    );
    const byToken = await queriesDuring(api, () => requestFrom(api, '127.0.0.4', { path: `/v1/public/agents/by-token/${randomPublicToken()}` }));
    assert.equal(byToken.result.status, 429);
    assert.equal(byToken.queries, 0);
  });

  it('unknown Host names (agent hosts and would-be custom domains): 404 until the limit, then 429 without a query', async () => {
    let i = 0;
    const agentsDomain = fixture().config.AGENTS_DOMAIN;
    // Alternately an unknown agent host (404) and an unknown name that could be a custom domain.
    await floodStopsReachingPostgres(
      api,
      LIMIT,
      async () => {
        i += 1;
        const host = i % 2 === 0 ? `${randomLabel()}.${agentsDomain}` : `${randomLabel()}.example.org`;
        const answer = await requestFrom(api, '127.0.0.5', { path: '/v1/public/agents/agt_none', headers: { host } });
        // The would-be custom domain is not one: the request goes on to the API's own route (404 agent_not_found).
        return answer;
      },
      404,
    );
  });

  it('unknown SNI names: handshakes fail, and past the limit they fail without a query', async () => {
    const handshake = (from: string) =>
      new Promise<'secure' | 'refused'>((resolve) => {
        const raw = net.connect({ host: '127.0.0.1', port: api.httpsPort!, localAddress: from });
        const socket = tls.connect({ socket: raw, servername: `${randomLabel()}.example.net`, rejectUnauthorized: false });
        socket.once('secureConnect', () => {
          socket.destroy();
          resolve('secure');
        });
        socket.once('error', () => resolve('refused'));
      });
    for (let i = 0; i < LIMIT; i++) {
      const { result, queries } = await queriesDuring(api, () => handshake('127.0.0.6'));
      assert.equal(result, 'refused');
      assert.ok(queries > 0, 'an unknown name is looked up');
    }
    const { result, queries } = await queriesDuring(api, async () => Promise.all(Array.from({ length: 10 }, () => handshake('127.0.0.6'))));
    assert.deepEqual(new Set(result), new Set(['refused']));
    assert.equal(queries, 0, 'past the limit, a handshake costs no query');
    const other = await queriesDuring(api, () => handshake('127.0.0.7'));
    assert.ok(other.queries > 0, 'another address is still looked up');
  });
});

/**
 * Issue 49, item 7: many clients share one address (a NAT, a proxy), so one client's guesses must
 * not lock the others out. The key cache keeps an entry CACHE_TTL_MS here (60 s in a process), so
 * "idle for longer than the cache keeps it" takes a moment.
 */
describe('refuse before working: a flood from a shared address locks out no valid credential', function () {
  this.timeout(60_000);
  const CACHE_TTL_MS = 200;
  const FAILURES = 30;
  const api = useTestApi(() => ({
    config: { ...fixture().config, AUTH_FAILURES_PER_ADDRESS: FAILURES, AUTH_FAILURES_WINDOW_SECONDS: 60, RATE_LIMIT_HOLD_MS: 0 },
    keyCacheTtlMs: CACHE_TTL_MS,
  }));
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const idle = () => new Promise((r) => setTimeout(r, CACHE_TTL_MS * 3));

  /** 60 unknown keys from `from`: 401 until the address's limit, then 429. */
  async function flood(from: string): Promise<void> {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await requestFrom(api, from, { path: '/v1/agents', headers: bearer(randomKey()) })).status);
    assert.deepEqual(statuses, [...Array<number>(FAILURES).fill(401), ...Array<number>(60 - FAILURES).fill(429)]);
  }

  it('60 unknown keys from one address, then a valid key idle for longer than the key cache keeps it: 200, and guesses stay refused without a query', async () => {
    const { apiKey } = await api.newWorkspace();
    const from = '127.0.0.8';
    assert.equal((await requestFrom(api, from, { path: '/v1/workspace', headers: bearer(apiKey) })).status, 200);
    await flood(from);
    await idle();
    const valid = await queriesDuring(api, () => requestFrom(api, from, { path: '/v1/workspace', headers: bearer(apiKey) }));
    assert.equal(valid.result.status, 200, JSON.stringify(valid.result.body));
    assert.ok(valid.queries > 0, 'looked up again: its cache entry had expired');
    const guess = await queriesDuring(api, () => requestFrom(api, from, { path: '/v1/agents', headers: bearer(randomKey()) }));
    assert.equal(guess.result.status, 429);
    assert.equal(guess.queries, 0, 'a guess from the flooded address still costs no query');
  });

  it('what lockout remains: a key this process never found live waits for the window; a found key, once revoked, is forgotten at its first failure', async () => {
    const from = '127.0.0.9';
    const { workspace, apiKey } = await api.newWorkspace();
    const { record: revoked, apiKey: revokedKey } = await api.repos.apiKeys.create({ workspaceId: workspace.id });
    assert.equal((await requestFrom(api, from, { path: '/v1/workspace', headers: bearer(revokedKey) })).status, 200);
    await flood(from);
    const fresh = await requestFrom(api, from, { path: '/v1/workspace', headers: bearer(apiKey) });
    assert.equal(fresh.status, 429, 'a key never found live by this process is refused with its address');
    assert.equal((await requestFrom(api, '127.0.0.10', { path: '/v1/workspace', headers: bearer(apiKey) })).status, 200, 'from another address it works');

    assert.ok(await api.repos.apiKeys.revoke({ id: revoked.id }));
    await idle();
    assert.equal((await requestFrom(api, from, { path: '/v1/workspace', headers: bearer(revokedKey) })).status, 401, 'looked up once more, and found revoked');
    assert.equal((await requestFrom(api, from, { path: '/v1/workspace', headers: bearer(revokedKey) })).status, 429, 'then forgotten: refused with its address');
  });

  it('a publishable token found earlier still answers from a flooded address; an unknown one does not', async () => {
    const from = '127.0.0.11';
    const { apiKey } = await api.newWorkspace();
    const agent = await freelancer(api.baseURL, apiKey);
    const [v1] = await agent.versionIds();
    assert.equal((await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } })).status, 200);
    const token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agent.agentId}/public-token`, { apiKey })).body.token;
    assert.equal((await requestFrom(api, from, { path: `/v1/public/agents/by-token/${token}` })).status, 200);
    await flood(from);
    assert.equal((await requestFrom(api, from, { path: `/v1/public/agents/by-token/${token}` })).status, 200);
    assert.equal((await requestFrom(api, from, { path: `/v1/public/agents/by-token/${randomPublicToken()}` })).status, 429);
  });
});

/**
 * A 10 MiB body sent slowly: the headers and the first 64 KiB, then nothing. The answer comes
 * before the rest is sent (so before any of it could be parsed); the status line is returned.
 */
function answerBeforeBody(baseURL: string, headers: Record<string, string>): Promise<string> {
  const url = new URL(baseURL);
  const length = 10 * 1024 * 1024 - 1024;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      const head = Object.entries({ host: url.host, 'content-type': 'application/json', 'content-length': String(length), ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST /v1/codec/decode HTTP/1.1\r\n${head}\r\n`);
      socket.write(`{"payloads":[{"data":"${'A'.repeat(64 * 1024)}`);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer while the body was still being sent'));
    }, 5000);
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(chunk.toString('latin1').split('\r\n')[0] ?? '');
    });
    socket.on('error', reject);
  });
}

describe('refuse before working: the codec endpoint', function () {
  this.timeout(60_000);
  const token = randomBytes(24).toString('hex');
  const api = useTestApi(() => ({ config: { ...fixture().config, CODEC_TOKEN: token } }));

  it('without the token, a large body is refused with 401 before it is read', async () => {
    assert.match(await answerBeforeBody(api.baseURL, {}), /^HTTP\/1\.1 401 /);
    assert.match(await answerBeforeBody(api.baseURL, { authorization: 'Bearer wrong' }), /^HTTP\/1\.1 401 /);
  });

  it('without CODEC_TOKEN, the endpoint does not exist: 404 before the body is read', async () => {
    const off = await startTestApi({ config: { ...fixture().config, CODEC_TOKEN: undefined } });
    try {
      assert.match(await answerBeforeBody(off.baseURL, { authorization: `Bearer ${token}` }), /^HTTP\/1\.1 404 /);
    } finally {
      await off.stop();
    }
  });
});
