import assert from 'node:assert/strict';
import { workspaceSchema } from '../../domain/workspace';
import { useTestApi } from '../support/api';
import { call, type ErrorJson } from '../../harness/http';
import { refusedSoon } from '../support/revocation';

describe('API keys', () => {
  const api = useTestApi();

  it('a live key reads its own workspace', async () => {
    const { workspace, apiKey } = await api.newWorkspace({ name: 'acme', credits: 42 });
    const res = await call(api.baseURL, 'GET', '/v1/workspace', { apiKey });
    assert.equal(res.status, 200);
    assert.deepEqual(workspaceSchema.strict().parse(res.body), workspace);
  });

  const cases: Array<[string, Record<string, string>, string]> = [
    ['no Authorization header', {}, 'missing_api_key'],
    ['a malformed key', { authorization: 'Bearer not-a-key' }, 'invalid_api_key'],
    ['a different scheme', { authorization: 'Basic c2tfYWJj' }, 'invalid_api_key'],
    ['a well-formed key nobody issued', { authorization: `Bearer sk_${'a'.repeat(40)}` }, 'invalid_api_key'],
  ];
  for (const [name, headers, code] of cases) {
    it(`${name} answers 401 ${code}`, async () => {
      const res = await call<ErrorJson>(api.baseURL, 'GET', '/v1/workspace', { headers });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, code);
      assert.equal(res.body.error.retryable, false);
    });
  }

  it('a revoked key answers 401 and other keys of the workspace keep working', async () => {
    const { workspace, apiKey, keyId } = await api.newWorkspace();
    const other = await api.repos.apiKeys.create({ workspaceId: workspace.id });
    assert.equal((await call(api.baseURL, 'GET', '/v1/workspace', { apiKey })).status, 200);
    await api.repos.apiKeys.revoke({ id: keyId });
    // The API's cache of keys hears of it through PostgreSQL's NOTIFY, a moment after the commit.
    await refusedSoon(api, apiKey, 'the revoked key');
    const res = await call<ErrorJson>(api.baseURL, 'GET', '/v1/workspace', { apiKey });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'invalid_api_key');
    assert.equal((await call(api.baseURL, 'GET', '/v1/workspace', { apiKey: other.apiKey })).status, 200);
  });

  it('keys are stored only as hashes', async () => {
    const { apiKey, keyId } = await api.newWorkspace();
    const row = await api.db('api_keys').where({ id: keyId }).first();
    assert.ok(row);
    assert.ok(!JSON.stringify(row).includes(apiKey.slice(3)), 'the key text is in the row');
  });
});
