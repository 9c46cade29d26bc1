import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createDb } from '../../db/connect';
import { randomToken } from '../../domain/ids';
import { freePort } from '../../infra/temporal-dev-server';
import { fixture } from '../support/fixture';
import { cliEntry, repoRoot } from '../../harness/cli';
import { isolatedEnv, spawnWorker } from '../support/workers';

/** The production processes stop cleanly on SIGTERM: the worker drains, the API closes, exit code 0. */
describe('hosted-agents api and worker on SIGTERM', function () {
  this.timeout(90_000);

  function exited(child: import('node:child_process').ChildProcess): Promise<number | null> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('did not exit within 30 s of SIGTERM')), 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  }

  it('the worker answers /healthz and /readyz on WORKER_HEALTH_PORT: polling, PostgreSQL and Temporal ok', async () => {
    const port = await freePort();
    const worker = await spawnWorker(isolatedEnv({ WORKER_HEALTH_PORT: String(port), HOST: '127.0.0.1' }));
    try {
      const live = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.deepEqual([live.status, await live.json()], [200, { status: 'ok' }]);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready', checks: { postgres: 'ok', temporal: 'ok', polling: 'ok' } }]);
      assert.equal((await fetch(`http://127.0.0.1:${port}/v1/agents`)).status, 404, 'the worker serves nothing else');
    } finally {
      const done = exited(worker);
      worker.kill('SIGTERM');
      assert.equal(await done, 0, worker.output());
    }
  });

  it('the worker drains and exits 0', async () => {
    const worker = await spawnWorker(isolatedEnv({}));
    const done = exited(worker);
    worker.kill('SIGTERM');
    assert.equal(await done, 0, worker.output());
    assert.match(worker.output(), /stopped cleanly/);
  });

  /** Starts `hosted-agents api` with `extra` env on a free port; resolves once /healthz answers (bounded). */
  async function startApi(extra: Record<string, string>) {
    const port = await freePort();
    const child = spawn(process.execPath, [cliEntry, 'api'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...isolatedEnv({ PORT: String(port), HOST: '127.0.0.1', ...extra }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false))) {
      await new Promise((r) => setTimeout(r, 200));
    }
    return { child, port, output: () => output };
  }

  it('the API and the worker open DATABASE_POOL_MIN connections before they are ready, and no more', async () => {
    // Each process's pooled connections carry an application name of this test's own.
    const named = (name: string) => {
      const url = new URL(fixture().databaseUrl);
      url.searchParams.set('application_name', name);
      return url.toString();
    };
    const apiName = `pool-api-${randomToken(6)}`;
    const workerName = `pool-worker-${randomToken(6)}`;
    const db = createDb({ url: fixture().databaseUrl, poolMax: 1 });
    // The API's LISTEN session is its own connection, outside the pool (it may take the URL's name too).
    const open = async (name: string) =>
      Number(
        (await db.raw<{ rows: Array<{ n: string }> }>(`select count(*) as n from pg_stat_activity where application_name = ? and query not ilike 'listen %'`, [name]))
          .rows[0]!.n,
      );
    const { child } = await startApi({ DATABASE_URL: named(apiName), DATABASE_POOL_MIN: '4', DATABASE_POOL_MAX: '6' });
    const worker = await spawnWorker(isolatedEnv({ DATABASE_URL: named(workerName), DATABASE_POOL_MIN: '3', DATABASE_POOL_MAX: '6' }));
    try {
      // Without warming, a process that has just started holds the one or two connections its start-up used.
      assert.equal(await open(apiName), 4, 'the API holds its 4 before its first request');
      assert.ok((await open(workerName)) >= 3, 'the worker holds at least its 3');
      assert.ok((await open(workerName)) <= 6);
    } finally {
      const stopped = [exited(child), exited(worker)];
      child.kill('SIGTERM');
      worker.kill('SIGTERM');
      await Promise.all(stopped);
      await db.destroy();
    }
  });

  it('the API stops serving and exits 0', async () => {
    const { child, port, output } = await startApi({});
    const done = exited(child);
    child.kill('SIGTERM');
    assert.equal(await done, 0, output());
    assert.match(output(), /stopped cleanly/);
    assert.equal(await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'up', () => 'down'), 'down');
  });
});
