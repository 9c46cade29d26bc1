#!/usr/bin/env node
/**
 * Start-up times of `hosted-agents worker` and `hosted-agents api`, and the worker's memory at idle.
 * Not a test: it prints figures. Needs what the two commands need (DATABASE_URL of a migrated
 * database, TEMPORAL_ADDRESS, SECRETS_KEY, URL_SIGNING_KEY; PORT for the API).
 *
 *   node scripts/startup-times.js [--runs 5] [--path bin|tsx|tsx-cold] [--idle 10]
 *
 * --path bin       node bin/hosted-agents.js: build/ when it is fresh (bin/build-state.js), else the
 *                  sources through tsx; the first line says which
 * --path tsx       node --require tsx/cjs cli/main.ts: the sources through tsx, whatever build/ is
 * --path tsx-cold  the same with tsx's transform cache off (a container's first start without build/)
 *
 * Worker: from spawn to the first `Worker state changed … RUNNING` log line (Temporal's worker is
 * polling from then on) and to the CLI's `worker polling` line. API: from spawn to the first
 * 200 from GET /healthz (polled every 10 ms). Memory: VmRSS and VmHWM of the worker after --idle
 * seconds of polling an empty task queue.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const runs = Number(arg('runs', '5'));
const mode = arg('path', 'bin');
const idleSeconds = Number(arg('idle', '10'));
const port = Number(process.env.PORT ?? 8080);

function command(role) {
  if (mode === 'bin') return [path.join(root, 'bin/hosted-agents.js'), role];
  return ['--require', 'tsx/cjs', path.join(root, 'cli/main.ts'), role];
}

function env() {
  const e = { ...process.env, LOG_LEVEL: 'info' };
  if (mode === 'tsx-cold') e.TSX_DISABLE_CACHE = '1';
  return e;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function memory(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024 };
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

async function worker() {
  const t0 = performance.now();
  const child = spawn(process.execPath, command('worker'), { cwd: root, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const times = {};
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not poll in 60 s:\n${output}`)), 60_000);
    const onData = (d) => {
      output += d.toString();
      if (times.running === undefined && /"state":"RUNNING"/.test(output)) times.running = performance.now() - t0;
      if (times.polling === undefined && output.includes('worker polling')) times.polling = performance.now() - t0;
      if (times.running !== undefined && times.polling !== undefined) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  const atStart = memory(child.pid);
  await sleep(idleSeconds * 1000);
  const idle = memory(child.pid);
  await stop(child);
  return { ...times, atStart, idle };
}

async function api() {
  const t0 = performance.now();
  const child = spawn(process.execPath, command('api'), { cwd: root, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d.toString()));
  child.stderr.on('data', (d) => (output += d.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  let answered;
  while (answered === undefined) {
    if (exited) throw new Error(`api exited:\n${output}`);
    if (performance.now() - t0 > 60_000) throw new Error(`api did not answer in 60 s:\n${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(500) });
      if (res.ok) answered = performance.now() - t0;
    } catch {
      // not listening yet
    }
    if (answered === undefined) await sleep(10);
  }
  const mem = memory(child.pid);
  await stop(child);
  return { answered, mem };
}

const ms = (x) => (x === undefined ? '—' : `${Math.round(x)} ms`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  let what = mode;
  if (mode === 'bin' && fs.existsSync(path.join(root, 'bin/build-state.js'))) {
    const { entry, reason } = require('../bin/build-state').compiledEntry();
    what = `bin: ${entry ? 'build/' : 'sources through tsx'} (${reason})`;
  }
  console.log(`path ${what}, ${runs} runs, node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const w = [];
  const a = [];
  for (let i = 0; i < runs; i++) {
    const rw = await worker();
    w.push(rw);
    const ra = await api();
    a.push(ra);
    console.log(
      `run ${i + 1}: worker RUNNING ${ms(rw.running)}, 'worker polling' ${ms(rw.polling)}; ` +
        `worker RSS at start ${rw.atStart.rssMB.toFixed(0)} MB, after ${idleSeconds} s idle ${rw.idle.rssMB.toFixed(0)} MB (HWM ${rw.idle.hwmMB.toFixed(0)} MB); ` +
        `api /healthz ${ms(ra.answered)} (RSS ${ra.mem.rssMB.toFixed(0)} MB)`,
    );
  }
  console.log(
    `median: worker RUNNING ${ms(median(w.map((r) => r.running)))}, 'worker polling' ${ms(median(w.map((r) => r.polling)))}, ` +
      `worker idle RSS ${median(w.map((r) => r.idle.rssMB)).toFixed(0)} MB (HWM ${median(w.map((r) => r.idle.hwmMB)).toFixed(0)} MB), ` +
      `api /healthz ${ms(median(a.map((r) => r.answered)))}`,
  );
  console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
