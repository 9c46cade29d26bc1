import os from 'node:os';
import { attributeTurns } from './lib/attribution';
import { barePhase } from './lib/bare-phase';
import { engineLegs, timeBreakdown, watchModelArrivals } from './lib/breakdown';
import { workerLegs } from './lib/worker-legs';
import { benchConfig, type BenchConfig } from './lib/config';
import { createAgent } from './lib/http';
import { latencyPhase, loadPhase, Tally } from './lib/phases';
import { rssKb } from './lib/proc';
import { markdownTable, type Results } from './lib/report';
import { appendResult } from './lib/results';
import { Cleanup, startStack } from './lib/stack';
import { formatSummary, ms, summarise } from './lib/stats';

/**
 * `npm run bench:turns`: the service (API and worker as separate processes, an in-memory Temporal
 * dev server, PostgreSQL) against a local OpenAI-compatible server that streams a fixed reply with a
 * fixed delay per chunk. Prints time to first text through the service and straight to the model
 * server, sustained turns/s under concurrency, CPU per turn, peak RSS, and whether any stream lost
 * or reordered an event; then the bare Temporal chain a turn is made of (bench/bare/) at the same
 * concurrency on the same dev server, and our figures as a share of it; ends with a Markdown table.
 * With BENCH_TURNS_APIS / BENCH_TURNS_WORKERS > 1 it also shows the turns each process served.
 * Settings: bench/lib/config.ts.
 */

const startedAt = performance.now();
const log = (line: string) => process.stderr.write(`[bench +${((performance.now() - startedAt) / 1000).toFixed(1)}s] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

async function run(cfg: BenchConfig, cleanup: Cleanup): Promise<void> {
  const chunks = cfg.chunkSize ? Math.ceil(cfg.reply.length / cfg.chunkSize) : cfg.reply.split(' ').length;
  out('# bench:turns');
  out();
  out(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`);
  out(`model: fixed reply of ${cfg.reply.split(' ').length} words in ${chunks} content deltas, ${cfg.chunkDelayMs} ms before each chunk after the first`);

  log('starting model server, PostgreSQL, Temporal, API and worker…');
  const stack = await startStack(cfg, cleanup, log);
  out(`PostgreSQL: ${stack.postgresKind}; Temporal: ${stack.temporalKind}; ${cfg.apis} API and ${cfg.workers} worker process(es), each separate`);
  const agentId = await createAgent(stack.baseURL, stack.apiKey);
  const tally = new Tally();
  const modelArrival = watchModelArrivals(stack.model);

  log(`warm-up: ${cfg.warmupTurns} turns`);
  await latencyPhase(stack, agentId, cfg, cfg.warmupTurns, tally, modelArrival);
  const warmupFailures = tally.failures;

  log(`latency: ${cfg.latencyTurns} sequential turns, each also sent straight to the model server`);
  const latency = await latencyPhase(stack, agentId, cfg, cfg.latencyTurns, tally, modelArrival);
  const service = summarise(latency.service);
  const direct = summarise(latency.direct);
  out();
  out('## Time to first text (sequential, one turn at a time)');
  out(`through the service (request → first text event):       ${formatSummary(service)}`);
  out(`straight to the model server (request → first delta):    ${formatSummary(direct)}`);
  out(`overhead (service − direct):  p50 ${ms(service.p50 - direct.p50)} ms, p99 ${ms(service.p99 - direct.p99)} ms`);
  out(`failures in warm-up + latency phases: ${tally.failures} (warm-up ${warmupFailures})`);
  out();
  out('where the time to first text goes (ms, p50 and p99 of each stage):');
  for (const line of await timeBreakdown(latency.timed, stack.databaseUrl, stack.temporalAddress)) out(`  ${line}`);

  log(`load: ${cfg.concurrency} concurrent loops for ${cfg.seconds} s`);
  const load = await loadPhase(stack, agentId, cfg, tally, log);
  const perTurn = (v: number | undefined) => (v === undefined || load.inWindow === 0 ? undefined : v / load.inWindow);
  const turnsPerSecond = load.inWindow / cfg.seconds;
  out();
  out(`## Load: ${cfg.concurrency} concurrent loops for ${cfg.seconds} s (a new conversation every ${cfg.turnsPerConversation} turns)`);
  out(`completed turns in the window: ${load.inWindow} → ${turnsPerSecond.toFixed(1)} turns/s (${load.afterWindow} more finished after it)`);
  out(`errors: ${load.errors}; failures of all phases by kind: ${tally.describe()}`);
  out(`events per stream (mean, all phases): ${(tally.events / Math.max(1, tally.streams)).toFixed(1)}`);
  for (const example of tally.examples) out(`  e.g. ${example}`);
  out(`first text under load:  ${formatSummary(load.firstText)}`);
  out(`whole turn under load:  ${formatSummary(load.total)}`);
  log('which worker served each turn (from Temporal histories)…');
  const served = await attributeTurns(load.turnIds, stack.temporalAddress, stack.workers.map((w) => w.pid));
  out();
  out('## Turns served by each process (load window)');
  stack.apis.forEach((api, i) => out(`${api.name} (pid ${api.pid}): ${load.perApi[i] ?? 0} turns`));
  stack.workers.forEach((worker, i) => out(`${worker.name} (pid ${worker.pid}): ${served.perWorker[i] ?? 0} turns (ran their model step)`));
  out(`turns whose worker could not be told: ${served.unattributed}; errors: ${load.errors}`);

  log(`bare Temporal chain: ${cfg.concurrency} concurrent loops for ${cfg.seconds} s`);
  const bare = await barePhase(stack, cfg, cleanup, log);
  const bareRate = bare.inWindow / cfg.seconds;
  const barePer = (v: number | undefined) => (v === undefined || bare.inWindow === 0 ? undefined : v / bare.inWindow);
  out();
  out(`## The bare Temporal chain: ${cfg.concurrency} concurrent loops for ${cfg.seconds} s (same Temporal, a worker process with our Worker options)`);
  out(`completed workflows in the window: ${bare.inWindow} → ${bareRate.toFixed(1)} workflows/s (${bare.afterWindow} more finished after it); errors: ${bare.errors}${bare.firstError ? ` (e.g. ${bare.firstError})` : ''}`);
  out(`start → result under load: ${formatSummary(bare.total)}`);
  out(`our turns/s as a share of it: ${((turnsPerSecond / bareRate) * 100).toFixed(0)}%`);
  out(`Temporal's legs of a bare workflow run one at a time (${bare.sequentialIds.length} after the warm-up; ms, p50 and p99), beside ours above:`);
  for (const line of await engineLegs(bare.sequentialIds, stack.temporalAddress)) out(`  ${line}`);
  if (cfg.workerLegsDir) {
    out('Inside those legs, as each worker\'s SDK saw its first workflow task and first activity (BENCH_WORKER_LEGS=1; ms, sequential):');
    const arrivals = new Map(latency.timed.map((t) => [`turn-${t.turnId}`, t.modelRequestAt]));
    for (const line of await workerLegs(cfg.workerLegsDir, arrivals, bare.sequentialIds)) out(`  ${line}`);
  }

  const cell = (v: number | undefined) => (v === undefined ? 'n/a' : ms(v));
  const share = (v: number | undefined, seconds: number) => (v === undefined ? 'n/a' : `${((v / (seconds * 1000)) * 100).toFixed(0)}%`);
  out();
  out(`## CPU during the load windows (ours ${load.cpu.seconds.toFixed(1)} s, machine busy ${load.cpu.machineBusyPct.toFixed(0)}% of ${os.cpus().length} cores, steal ${load.cpu.stealPct.toFixed(1)}%; bare ${bare.cpu.seconds.toFixed(1)} s, busy ${bare.cpu.machineBusyPct.toFixed(0)}%)`);
  out('process                                  | ours ms/turn | ours % of a core | bare ms/workflow | bare % of a core');
  const row = (name: string, key: 'api' | 'worker' | 'temporal' | 'temporalPostgres' | 'postgres' | 'bench') =>
    out(`${name.padEnd(40)} | ${cell(perTurn(load.cpu.ms[key])).padStart(12)} | ${share(load.cpu.ms[key], load.cpu.seconds).padStart(16)} | ${cell(barePer(bare.cpu.ms[key])).padStart(16)} | ${share(bare.cpu.ms[key], bare.cpu.seconds).padStart(16)}`);
  row(`API (bare: its client process)`, 'api');
  row('worker', 'worker');
  const cluster = cfg.temporal === 'cluster';
  row(cluster ? 'Temporal cluster (4 service processes)' : 'Temporal dev server', 'temporal');
  if (cluster) row("PostgreSQL for Temporal (its databases' backends)", 'temporalPostgres');
  row(cluster ? 'PostgreSQL for us (the rest)' : 'PostgreSQL (all processes)', 'postgres');
  row('bench (clients + model server)', 'bench');
  const other = load.cpu.ms.other ?? 0;
  out(`everything else on the machine (not the bench's): ${share(other, load.cpu.seconds)} of one core (bare window: ${share(bare.cpu.ms.other, bare.cpu.seconds)})`);

  const mb = (pids: number[]) => {
    const kbs = pids.map((pid) => rssKb(pid));
    return kbs.some((kb) => kb === undefined) ? undefined : Math.max(...(kbs as number[])) / 1024;
  };
  const rss = { api: mb(stack.apis.map((a) => a.pid)), worker: mb(stack.workers.map((w) => w.pid)), temporal: stack.temporalPids.length === 0 ? undefined : mb(stack.temporalPids) };
  out();
  out('## Peak RSS (VmHWM; with several processes of a kind, the largest)');
  out(`API ${rss.api?.toFixed(0) ?? 'n/a'} MB, worker ${rss.worker?.toFixed(0) ?? 'n/a'} MB, Temporal ${cfg.temporal === 'cluster' ? '(largest service)' : 'dev server'} ${rss.temporal?.toFixed(0) ?? 'n/a'} MB; bare worker ${bare.workerPeakRssMb?.toFixed(0) ?? 'n/a'} MB`);

  const results: Results = {
    concurrency: cfg.concurrency,
    seconds: cfg.seconds,
    service,
    direct,
    turnsPerSecond,
    loadTurns: load.inWindow,
    errors: load.errors,
    streamsChecked: tally.streams,
    lostOrReordered: tally.lostOrReordered,
    apiCpuMsPerTurn: perTurn(load.cpu.ms.api),
    workerCpuMsPerTurn: perTurn(load.cpu.ms.worker),
    temporalCpuMsPerTurn: perTurn(load.cpu.ms.temporal),
    temporalPostgresCpuMsPerTurn: perTurn(load.cpu.ms.temporalPostgres),
    postgresCpuMsPerTurn: perTurn(load.cpu.ms.postgres),
    temporal: cfg.temporal,
    apiPeakRssMb: rss.api,
    workerPeakRssMb: rss.worker,
    bareWorkerPeakRssMb: bare.workerPeakRssMb,
    apis: cfg.apis,
    workers: cfg.workers,
    bareWorkflowsPerSecond: bareRate,
    bareErrors: bare.errors,
    bareCpuMsPerWorkflow: { api: barePer(bare.cpu.ms.api), worker: barePer(bare.cpu.ms.worker), temporal: barePer(bare.cpu.ms.temporal), temporalPostgres: barePer(bare.cpu.ms.temporalPostgres), postgres: barePer(bare.cpu.ms.postgres) },
    perApi: load.perApi,
    perWorker: served.perWorker,
  };
  out();
  out('## Result');
  out();
  out(markdownTable(results));
  appendResult('turns', {
    temporal: cfg.temporal,
    apis: cfg.apis,
    workers: cfg.workers,
    concurrency: cfg.concurrency,
    seconds: cfg.seconds,
    firstTextP50Ms: service.p50,
    firstTextP99Ms: service.p99,
    directP50Ms: direct.p50,
    directP99Ms: direct.p99,
    turnsPerSecond,
    bareWorkflowsPerSecond: bareRate,
    apiCpuMsPerTurn: results.apiCpuMsPerTurn,
    workerCpuMsPerTurn: results.workerCpuMsPerTurn,
    temporalCpuMsPerTurn: results.temporalCpuMsPerTurn,
    temporalPostgresCpuMsPerTurn: results.temporalPostgresCpuMsPerTurn,
    postgresCpuMsPerTurn: results.postgresCpuMsPerTurn,
    bareTemporalCpuMsPerWorkflow: results.bareCpuMsPerWorkflow.temporal,
    bareTemporalPostgresCpuMsPerWorkflow: results.bareCpuMsPerWorkflow.temporalPostgres,
    workerPeakRssMb: rss.worker,
    bareWorkerPeakRssMb: bare.workerPeakRssMb,
    errors: load.errors,
    lostOrReordered: tally.lostOrReordered,
  });
}

async function main(): Promise<void> {
  const cfg = benchConfig();
  const cleanup = new Cleanup();
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(1);
    interrupted = true;
    log(`${signal}: cleaning up…`);
    void cleanup.run(log).finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await run(cfg, cleanup);
  } finally {
    log('stopping everything…');
    await cleanup.run(log);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
