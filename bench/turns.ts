import os from 'node:os';
import { timeBreakdown, watchModelArrivals } from './lib/breakdown';
import { benchConfig, type BenchConfig } from './lib/config';
import { createAgent } from './lib/http';
import { latencyPhase, loadPhase, Tally } from './lib/phases';
import { rssKb } from './lib/proc';
import { markdownTable, type Results } from './lib/report';
import { Cleanup, startStack } from './lib/stack';
import { formatSummary, ms, summarise } from './lib/stats';

/**
 * `npm run bench:turns`: the service (API and worker as separate processes, an in-memory Temporal
 * dev server, PostgreSQL) against a local OpenAI-compatible server that streams a fixed reply with a
 * fixed delay per chunk. Prints time to first text through the service and straight to the model
 * server, sustained turns/s under concurrency, CPU per turn, peak RSS, and whether any stream lost
 * or reordered an event; ends with a Markdown table. Settings: bench/lib/config.ts.
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
  out(`PostgreSQL: ${stack.postgresKind}; Temporal: dev server in memory; API and worker: separate processes`);
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
  const core = (v: number | undefined) => (v === undefined ? 'n/a' : `${ms(perTurn(v) ?? Number.NaN)} ms/turn, ${((v / (load.cpu.seconds * 1000)) * 100).toFixed(0)}% of one core`);
  const turnsPerSecond = load.inWindow / cfg.seconds;
  out();
  out(`## Load: ${cfg.concurrency} concurrent loops for ${cfg.seconds} s (a new conversation every ${cfg.turnsPerConversation} turns)`);
  out(`completed turns in the window: ${load.inWindow} → ${turnsPerSecond.toFixed(1)} turns/s (${load.afterWindow} more finished after it)`);
  out(`errors: ${load.errors}; failures of all phases by kind: ${tally.describe()}`);
  out(`events per stream (mean, all phases): ${(tally.events / Math.max(1, tally.streams)).toFixed(1)}`);
  for (const example of tally.examples) out(`  e.g. ${example}`);
  out(`first text under load:  ${formatSummary(load.firstText)}`);
  out(`whole turn under load:  ${formatSummary(load.total)}`);
  out();
  out(`## CPU during the load window (${load.cpu.seconds.toFixed(1)} s; machine busy ${load.cpu.machineBusyPct.toFixed(0)}% of ${os.cpus().length} cores, steal ${load.cpu.stealPct.toFixed(1)}%)`);
  out(`API:                          ${core(load.cpu.ms.api)}`);
  out(`worker:                       ${core(load.cpu.ms.worker)}`);
  out(`Temporal dev server:          ${core(load.cpu.ms.temporal)}`);
  out(`PostgreSQL (all processes):   ${core(load.cpu.ms.postgres)}`);
  out(`bench (clients + model server): ${core(load.cpu.ms.bench)}`);
  const other = load.cpu.ms.other ?? 0;
  out(`everything else on the machine (not the bench's): ${((other / (load.cpu.seconds * 1000)) * 100).toFixed(0)}% of one core`);

  const mb = (pid: number | undefined) => {
    const kb = pid === undefined ? undefined : rssKb(pid);
    return kb === undefined ? undefined : kb / 1024;
  };
  const rss = { api: mb(stack.api.pid), worker: mb(stack.worker.pid), temporal: mb(stack.temporalPid) };
  out();
  out('## Peak RSS (VmHWM)');
  out(`API ${rss.api?.toFixed(0) ?? 'n/a'} MB, worker ${rss.worker?.toFixed(0) ?? 'n/a'} MB, Temporal dev server ${rss.temporal?.toFixed(0) ?? 'n/a'} MB`);

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
    postgresCpuMsPerTurn: perTurn(load.cpu.ms.postgres),
    apiPeakRssMb: rss.api,
    workerPeakRssMb: rss.worker,
  };
  out();
  out('## Result');
  out();
  out(markdownTable(results));
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
