import assert from 'node:assert/strict';
import { DEFAULT_TIMEOUT_MS, Service, WorkspaceClient } from '../src';
import { resolveOptions } from '../src/options';
import { json, startTestServer, type TestServer } from './support/test-server';

const ENV_KEYS = ['SERVICE_API_KEY', 'SERVICE_BASE_URL'] as const;

/** Runs `fn` with the given SDK environment variables (others unset), restoring them after. */
async function withEnv(values: Partial<Record<(typeof ENV_KEYS)[number], string>>, fn: () => Promise<void>): Promise<void> {
  const saved = ENV_KEYS.map((key) => [key, process.env[key]] as const);
  for (const key of ENV_KEYS) {
    const value = values[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    await fn();
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** A fetch that records the URL and Authorization header it was asked for and answers a record. */
function recordingFetch(calls: Array<{ url: string; authorization: string | null }>): typeof fetch {
  return async (input, init) => {
    calls.push({ url: String(input), authorization: new Headers(init?.headers).get('authorization') });
    return Response.json({ id: 'ws_1', name: 'n', credits: 0, createdAt: 't' });
  };
}

describe('SDK entry: Service, options and environment defaults', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    server.respond((_req, res) => json(res, 200, { id: 'ws_1', name: 'n', credits: 1, createdAt: 't' }));
  });
  beforeEach(() => {
    server.received.length = 0;
  });
  after(() => server.close());

  it('new Service() and Service.getWorkspace() return workspace handles without any request', async () => {
    const viaNew = new Service({ apiKey: 'k', baseURL: server.baseURL });
    const viaStatic = Service.getWorkspace({ apiKey: 'k', baseURL: server.baseURL });
    assert.ok(viaNew instanceof WorkspaceClient);
    assert.ok(viaStatic instanceof WorkspaceClient);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(server.received.length, 0);
    await viaStatic.get();
    assert.equal(server.received.length, 1);
  });

  it('apiKey and baseURL default to SERVICE_API_KEY and SERVICE_BASE_URL (trailing slash removed)', async () => {
    await withEnv({ SERVICE_API_KEY: 'sk_from_env', SERVICE_BASE_URL: `${server.baseURL}/` }, async () => {
      await new Service().get();
    });
    assert.equal(server.received[0]?.url, '/v1/workspace');
    assert.equal(server.received[0]?.headers.authorization, 'Bearer sk_from_env');
  });

  it('explicit options win over the environment', async () => {
    const calls: Array<{ url: string; authorization: string | null }> = [];
    await withEnv({ SERVICE_API_KEY: 'env_key', SERVICE_BASE_URL: 'http://env.invalid' }, async () => {
      await new Service({ apiKey: 'opt_key', baseURL: 'http://opt.invalid//', fetch: recordingFetch(calls) }).get();
    });
    assert.deepEqual(calls, [{ url: 'http://opt.invalid/v1/workspace', authorization: 'Bearer opt_key' }]);
  });

  it('with neither option nor environment, baseURL is http://localhost:8080', async () => {
    const calls: Array<{ url: string; authorization: string | null }> = [];
    await withEnv({}, async () => {
      await new Service({ apiKey: 'k', fetch: recordingFetch(calls) }).get();
    });
    assert.equal(calls[0]?.url, 'http://localhost:8080/v1/workspace');
  });

  it('options resolve where there is no process (browsers)', () => {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'process');
    assert.ok(descriptor?.configurable, 'cannot hide process in this runtime');
    Object.defineProperty(globalThis, 'process', { value: undefined, configurable: true, writable: true });
    try {
      const resolved = resolveOptions();
      assert.equal(resolved.baseURL, 'http://localhost:8080');
      assert.equal(resolved.apiKey, undefined);
    } finally {
      Object.defineProperty(globalThis, 'process', descriptor);
    }
  });

  it('the timeout defaults to 60 s and must be a positive number', () => {
    assert.equal(DEFAULT_TIMEOUT_MS, 60_000);
    assert.equal(resolveOptions({}).timeout, 60_000);
    assert.equal(resolveOptions({ timeout: 5 }).timeout, 5);
    for (const timeout of [0, -1, Number.NaN]) {
      assert.throws(() => new Service({ apiKey: 'k', timeout }), RangeError);
    }
  });
});
