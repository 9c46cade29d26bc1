import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { freePort } from '../../infra/temporal-dev-server';
import { cliEntry, repoRoot } from '../support/cli';
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

  it('the API stops serving and exits 0', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [cliEntry, 'api'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...isolatedEnv({ PORT: String(port), HOST: '127.0.0.1' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false))) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const done = exited(child);
    child.kill('SIGTERM');
    assert.equal(await done, 0, output);
    assert.match(output, /stopped cleanly/);
    assert.equal(await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'up', () => 'down'), 'down');
  });
});
