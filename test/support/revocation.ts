import assert from 'node:assert/strict';
import type { RunningApi } from './api';
import { call } from '../../harness/http';

/**
 * How long a revocation may take to reach an API process: its PostgreSQL notification (docs/operations.md:
 * Admin CLI), not the key cache's 60 s TTL. A request that reaches the API before the notification
 * does is still served with the key.
 */
const REVOCATION_MS = 1000;

/** The status `GET /v1/workspace` answers with `apiKey`. */
export const keyStatus = async (api: Pick<RunningApi, 'baseURL'>, apiKey: string) => (await call(api.baseURL, 'GET', '/v1/workspace', { apiKey })).status;

/** Asks until `apiKey` answers 401, for at most REVOCATION_MS; fails with the last status. */
export async function refusedSoon(api: Pick<RunningApi, 'baseURL'>, apiKey: string, what: string): Promise<void> {
  const deadline = Date.now() + REVOCATION_MS;
  for (;;) {
    const s = await keyStatus(api, apiKey);
    if (s === 401) return;
    assert.equal(s, 200, what);
    assert.ok(Date.now() < deadline, `${what}: still ${s} ${REVOCATION_MS} ms after the revocation`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
