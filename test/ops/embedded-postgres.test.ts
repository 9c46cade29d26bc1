import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { embeddedPostgresPassword, type EmbeddedPostgresHandle, startEmbeddedPostgres } from '../../infra/embedded-postgres';
import { freePort } from '../../infra/temporal-dev-server';

/** Whether `password` logs in as the superuser of the server at `url`. */
async function logsIn(url: string, password: string): Promise<boolean> {
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  const client = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return true;
  } catch (e) {
    if ((e as { code?: string }).code === '28P01') return false;
    throw e;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('embedded PostgreSQL: a random password kept in DATA_DIR', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  let handle: EmbeddedPostgresHandle | undefined;
  after(async () => {
    await handle?.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('is made with mode 600, differs between data directories, replaces the fixed one of an older data directory, and the fixed one no longer logs in', async () => {
    const a = await mkdtemp(path.join(tmpdir(), 'ha-pg-a-'));
    const b = await mkdtemp(path.join(tmpdir(), 'ha-pg-b-'));
    dirs.push(a, b);
    handle = await startEmbeddedPostgres({ dataDir: a, port: await freePort(), log: () => undefined });
    const file = path.join(a, 'postgres-password');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const password = (await readFile(file, 'utf8')).trim();
    assert.ok(password.length >= 40, 'random, not a word');
    assert.equal(decodeURIComponent(new URL(handle.url).password), password, 'the URL carries the kept password');
    assert.equal(await logsIn(handle.url, password), true);
    assert.equal(await logsIn(handle.url, 'postgres'), false, 'the old fixed password does not log in');
    assert.notEqual(await embeddedPostgresPassword(b), password, 'each data directory has its own');

    // A data directory from before: the fixed password and no password file. The next process on it moves it to a random one.
    const admin = new pg.Client({ connectionString: handle.url });
    await admin.connect();
    await admin.query("alter role postgres with password 'postgres'");
    await admin.end();
    await unlink(file);
    const reused = await startEmbeddedPostgres({ dataDir: a, port: await freePort(), log: () => undefined });
    assert.equal(reused.owned, false, 'the running server is reused, not started again');
    const moved = (await readFile(file, 'utf8')).trim();
    assert.notEqual(moved, password);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal(await logsIn(reused.url, moved), true);
    assert.equal(await logsIn(reused.url, 'postgres'), false, 'the fixed password was replaced');
  });
});
