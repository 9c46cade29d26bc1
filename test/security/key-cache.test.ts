import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { LISTENER_APPLICATION_NAME } from '../../api/server/pg-listener';
import { createDb, type Db } from '../../db/connect';
import { createRepositories, type Repositories } from '../../db/repositories';
import { type RunningApi, startTestApi, type TestApi, useTestApi } from '../support/api';
import { runCli } from '../../harness/cli';
import { fixture } from '../support/fixture';
import { keyStatus as status, refusedSoon } from '../support/revocation';
import { waitFor } from '../support/wait';

/** The lookups of `api_keys` the API makes for one request of `apiKey` (the API's pool is `api.db`). */
async function keyLookups(api: RunningApi, apiKey: string): Promise<number> {
  const sqls: string[] = [];
  const record = (q: { sql: string }) => void sqls.push(q.sql);
  api.db.on('query', record);
  try {
    assert.equal(await status(api, apiKey), 200);
  } finally {
    api.db.off('query', record);
  }
  assert.ok(sqls.some((sql) => sql.includes('workspaces')), `the route's own query was seen: ${sqls.join('; ')}`);
  // Lookups only: recording a key's last use (an update, at most once a minute) is not one.
  return sqls.filter((sql) => sql.includes('api_keys') && /^\s*select/i.test(sql)).length;
}

/** The API processes' LISTEN connections on the test database. */
const listeners = (db: Knex) =>
  db.raw<{ rows: Array<{ pid: number }> }>(`select pid from pg_stat_activity where datname = current_database() and application_name = ?`, [
    LISTENER_APPLICATION_NAME,
  ]);

describe('API key cache: a revocation reaches every API process at once', function () {
  this.timeout(60_000);
  const api = useTestApi();
  let second: TestApi | undefined;
  /** Another pool and repositories: revoking as another process would, through none of the APIs' objects. */
  let outsideDb: Db;
  let outside: Repositories;
  before(async () => {
    second = await startTestApi();
    outsideDb = createDb({ url: fixture().databaseUrl, poolMax: 2 });
    outside = createRepositories(outsideDb);
  });
  after(async () => {
    await second?.stop();
    await outsideDb?.destroy();
  });

  it('a key the process knows costs no lookup query', async () => {
    const { apiKey } = await api.newWorkspace();
    assert.equal(await keyLookups(api, apiKey), 1, 'the first request looks the key up');
    assert.equal(await keyLookups(api, apiKey), 0);
  });

  it('a key revoked by `hosted-agents key revoke` answers 401 on every API process', async () => {
    const { apiKey, keyId } = await api.newWorkspace();
    for (const running of [api, second!]) {
      assert.equal(await status(running, apiKey), 200);
      assert.equal(await status(running, apiKey), 200);
    }
    const revoked = await runCli(['key', 'revoke', keyId], { DATABASE_URL: fixture().databaseUrl });
    assert.equal(revoked.code, 0, revoked.stderr);
    await refusedSoon(api, apiKey, 'the first API');
    await refusedSoon(second!, apiKey, 'the second API');
  });

  it('a key revoked while the LISTEN connection is down answers 401; listening again, the cache serves and hears revocations', async () => {
    const { workspace, apiKey, keyId } = await api.newWorkspace();
    const { record: later, apiKey: laterKey } = await api.repos.apiKeys.create({ workspaceId: workspace.id });
    for (const key of [apiKey, laterKey]) assert.equal(await keyLookups(api, key), 1);
    assert.equal(await keyLookups(api, apiKey), 0, 'cached');

    const before = await listeners(outsideDb);
    assert.equal(before.rows.length, 2, 'one LISTEN connection per API process');
    // The timeout makes it wait until each backend has exited (its client has been told).
    for (const { pid } of before.rows) await outsideDb.raw('select pg_terminate_backend(?, 5000)', [pid]);
    await outsideDb.transaction(async (trx) => {
      const { rows } = await listeners(trx);
      assert.equal(rows.length, 0, 'the listeners have not reconnected yet: nobody hears this revocation');
      assert.ok(await outside.apiKeys.revoke({ id: keyId }, trx));
    });
    assert.equal(await status(api, apiKey), 401, 'the revocation nobody heard');

    // Back (250 ms later): the cache fills and serves again, and hears the next revocation.
    await waitFor('the cache serving again', () => keyLookups(api, laterKey), (n) => n === 0, 10_000);
    await waitFor('both listeners back', () => listeners(outsideDb), (r) => r.rows.length === 2, 10_000);
    assert.ok(await outside.apiKeys.revoke({ id: later.id }));
    await refusedSoon(api, laterKey, 'revoked after the reconnect');
  });
});
