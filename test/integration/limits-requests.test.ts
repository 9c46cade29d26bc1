import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../support/http';
import { assertRateLimited } from '../support/limits';

describe('limits: requests per API key', () => {
  const api = useTestApi(() => ({ config: { ...fixture().config, KEY_BURST_PER_SECOND: 5, KEY_REQUESTS_PER_MINUTE: 12 } }));

  it('a burst past KEY_BURST_PER_SECOND is refused with 429 and Retry-After; another key is unaffected', async () => {
    const { apiKey } = await api.newWorkspace();
    const { apiKey: other } = await api.newWorkspace();
    const answers = await Promise.all(Array.from({ length: 10 }, () => call<ErrorJson>(api.baseURL, 'GET', '/v1/workspace', { apiKey })));
    const refused = answers.filter((a) => a.status === 429);
    assert.ok(refused.length >= 5, `statuses ${answers.map((a) => a.status).join(' ')}`);
    assert.ok(answers.every((a) => a.status === 200 || a.status === 429), `statuses ${answers.map((a) => a.status).join(' ')}`);
    for (const r of refused) assertRateLimited(r, 'burst');
    assert.equal((await call(api.baseURL, 'GET', '/v1/workspace', { apiKey: other })).status, 200);
  });

  it('more than KEY_REQUESTS_PER_MINUTE in a minute, even at a slow pace, is refused until the minute ends', async () => {
    const { apiKey } = await api.newWorkspace();
    const { apiKey: other } = await api.newWorkspace();
    // 12 requests in three bursts of 4, each within the burst limit.
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 4 }, () => call(api.baseURL, 'GET', '/v1/workspace', { apiKey })));
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200], `round ${round}`);
      await new Promise((r) => setTimeout(r, 1100));
    }
    const refused = await call<ErrorJson>(api.baseURL, 'GET', '/v1/workspace', { apiKey });
    assertRateLimited(refused, 'per minute');
    assert.ok(refused.body.error.retryAfter! > 1, `the rest of the minute, not of a second: ${refused.body.error.retryAfter}`);
    assert.equal((await call(api.baseURL, 'GET', '/v1/workspace', { apiKey: other })).status, 200);
  });
});
