import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config/env';
import { temporalTargetFromConfig } from '../../infra/temporal-connection';

describe('configuration', () => {
  it('defaults give the embedded layout on port 8080', () => {
    const c = loadConfig({});
    assert.equal(c.PORT, 8080);
    assert.equal(c.baseURL, 'http://localhost:8080');
    assert.equal(c.DATABASE_URL, undefined);
    assert.equal(c.TEMPORAL_ADDRESS, undefined);
    assert.deepEqual(c.taskQueues, { turns: 'turns', ops: 'ops' });
    assert.equal(c.TEMPORAL_UI_PORT, 8233);
  });

  const bad: Array<[Record<string, string>, string, RegExp]> = [
    [{ PORT: 'eighty' }, 'PORT', /a port number/],
    [{ PORT: '70000' }, 'PORT', /a port number/],
    [{ TEMPORAL_UI_PORT: '-1' }, 'TEMPORAL_UI_PORT', /a port number/],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /postgres/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of fatal/],
    [{ TEMPORAL_TLS: 'maybe' }, 'TEMPORAL_TLS', /true or false/],
    [{ PUBLIC_BASE_URL: 'not a url' }, 'PUBLIC_BASE_URL', /absolute URL/],
    [{ BODY_LIMIT_BYTES: '12' }, 'BODY_LIMIT_BYTES', /at least 1024/],
    [{ TEMPORAL_TLS_CERT_PATH: '/c.pem' }, 'TEMPORAL_TLS_KEY_PATH', /together/],
    [{ TEMPORAL_METRICS_ADDRESS: 'localhost' }, 'TEMPORAL_METRICS_ADDRESS', /host:port/],
    [{ WORKER_MAX_CACHED_WORKFLOWS: '1' }, 'WORKER_MAX_CACHED_WORKFLOWS', /at least 2/],
    [{ WORKER_MAX_CACHED_WORKFLOWS: 'many' }, 'WORKER_MAX_CACHED_WORKFLOWS', /a number/],
    [{ DATABASE_POOL_MIN: '30' }, 'DATABASE_POOL_MIN', /at most DATABASE_POOL_MAX \(20\)/],
  ];
  for (const [env, variable, expectation] of bad) {
    it(`${variable}=${Object.values(env)[0]} stops start-up naming ${variable}`, () => {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) =>
          e instanceof ConfigError &&
          e.variable === variable &&
          expectation.test(e.message) &&
          // the value is quoted back when it is the named variable's own
          (env[variable] === undefined || e.message.includes(env[variable])),
      );
    });
  }

  it('the pool keeps DATABASE_POOL_MAX connections open unless DATABASE_POOL_MIN says fewer', () => {
    assert.equal(loadConfig({}).DATABASE_POOL_MIN, 20);
    assert.equal(loadConfig({ DATABASE_POOL_MAX: '8' }).DATABASE_POOL_MIN, 8);
    assert.equal(loadConfig({ DATABASE_POOL_MAX: '8', DATABASE_POOL_MIN: '0' }).DATABASE_POOL_MIN, 0);
  });

  it('an empty optional value counts as unset', () => {
    assert.equal(loadConfig({ DATABASE_URL: '', TEMPORAL_ADDRESS: ' ' }).DATABASE_URL, undefined);
  });

  it('an API key or client certificate implies TLS to Temporal; a prefix separates task queues', () => {
    const c = loadConfig({ TEMPORAL_TASK_QUEUE_PREFIX: 'blue-', PUBLIC_BASE_URL: 'https://agents.example.com/' });
    assert.deepEqual(c.taskQueues, { turns: 'blue-turns', ops: 'blue-ops' });
    assert.equal(c.baseURL, 'https://agents.example.com');
    assert.equal(temporalTargetFromConfig(c, 'x:7233').tls, false);
    assert.equal(temporalTargetFromConfig(loadConfig({ TEMPORAL_API_KEY: 'k' }), 'x:7233').tls, true);
    const mtls = loadConfig({ TEMPORAL_TLS_CERT_PATH: '/c.pem', TEMPORAL_TLS_KEY_PATH: '/k.pem' });
    assert.equal(temporalTargetFromConfig(mtls, 'x:7233').tls, true);
  });
});
