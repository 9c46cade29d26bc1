// Over 300 lines: one bench script with its own isolated stack, load phases and report, read top
// to bottom as the figures of bench/README.md are produced.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { temporalCliFromEnv } from '../harness/temporal-cli';
import { kill, startFaultStack } from '../harness/fault-stack';
import type { FloodCounts, FloodSpec } from './lib/flood';
import { CALM_HEADER } from './lib/api-trace';
import { describeWindow, readApiTrace } from './lib/calm-trace';
import { machineTicks, rssKb } from './lib/proc';
import { appendResult } from './lib/results';
import { ms, summarise } from './lib/stats';

/**
 * `npm run bench:limits`: the API under a flood. CLIENTS concurrent clients on loopback (three
 * keys reading as fast as they can, one uploading) send requests far above their keys' limits for
 * SECONDS; meanwhile a well-behaved client of another workspace reads at 10 requests a second.
 * Prints how many flood requests were answered 429 and 5xx (must be 0), the well-behaved client's
 * p99 during the flood against its quiet p99 (must stay within 2×), and the API's RSS. Real
 * processes (API, worker, PostgreSQL, Temporal), the limits below, the same flood for a few
 * seconds before the quiet phase (a warm-up). Not a test: it prints figures.
 */

const SECONDS = Number(process.env.BENCH_LIMITS_SECONDS ?? 30);
const CLIENTS = Number(process.env.BENCH_LIMITS_CLIENTS ?? 200);
const QUIET_SECONDS = Number(process.env.BENCH_LIMITS_QUIET_SECONDS ?? SECONDS);
/** The warm-up: the same flood, this long, before the quiet phase. */
const WARM_SECONDS = Number(process.env.BENCH_LIMITS_WARM_SECONDS ?? 5);
/** `false`: every flooding client reads (to tell the uploads' share of the well-behaved client's delay). */
const UPLOADS = process.env.BENCH_LIMITS_UPLOADS !== 'false';
/**
 * The flood client's CPU priority (nice, 0–19). A real flood comes from other machines: its CPU is
 * not the server's. On loopback it shares the server's cores, so by default it runs at the lowest
 * priority and takes what the server leaves; `BENCH_LIMITS_FLOOD_NICE=0` runs it as an equal.
 */
const FLOOD_NICE = Number(process.env.BENCH_LIMITS_FLOOD_NICE ?? 19);
/**
 * Node options of the API: by default what production runs it with (`npm start`, docker-compose.yml);
 * `BENCH_LIMITS_API_NODE_ARGS=` (empty) runs it with V8's defaults.
 */
const API_NODE_ARGS = (process.env.BENCH_LIMITS_API_NODE_ARGS ?? '--max-semi-space-size=64').split(/\s+/).filter(Boolean);
/**
 * `BENCH_LIMITS_TRACE=1`: the API records its GC pauses and the time it spent on each request of the
 * well-behaved client (bench/lib/api-trace.ts, preloaded into it), and the report splits the
 * client's latency into the API's part and the rest, and names the GC pauses its slowest answers
 * waited out. Off by default: the figures of record come from an API with nothing added.
 */
const TRACE = Boolean(process.env.BENCH_LIMITS_TRACE) && process.env.BENCH_LIMITS_TRACE !== 'false';
const TRACE_FILE = path.join(os.tmpdir(), `bench-limits-trace-${process.pid}.log`);
/** The well-behaved client: one request every this many ms (10 a second, inside its limits). */
const CALM_EVERY_MS = 100;
/**
 * The limits the API runs with: an operator's choice for a small machine, below the generous
 * defaults. What the flooding keys may still do within them must fit the machine: the well-behaved
 * client shares the API's event loop and connection pool with it. The per-minute budget leaves the
 * well-behaved client room: it reads 10 a second for over a minute (warm-up, quiet and flood).
 */
const LIMITS = { KEY_BURST_PER_SECOND: '20', KEY_REQUESTS_PER_MINUTE: '900', KEY_UPLOADS_MAX: '5' };

const t0 = performance.now();
const log = (line: string) => process.stderr.write(`[bench +${((performance.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

/** One request of the well-behaved client: its number, when it was sent and answered (ms, `performance.now()`), and how. */
interface CalmSample {
  seq: number;
  sentAt: number;
  answeredAt: number;
  status: number | 'failed';
}

/** What the well-behaved client saw in one phase: latencies of 200s, when each was sent (ms into the phase), the other answers counted. */
interface CalmRun {
  latencies: number[];
  sentAt: number[];
  other: Record<string, number>;
}

/**
 * Reads `GET /v1/workspace` every CALM_EVERY_MS until `running()` says stop, and keeps every
 * answer. One loop across the quiet phase and the flood: its requests keep their own pace,
 * whenever the flood starts, as a real client's would (the phases are cut from its samples).
 */
async function calmClient(baseURL: string, apiKey: string, running: () => boolean): Promise<CalmSample[]> {
  const samples: CalmSample[] = [];
  while (running()) {
    const seq = samples.length + 1;
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if (TRACE) headers[CALM_HEADER] = String(seq);
    const sentAt = performance.now();
    let status: CalmSample['status'];
    try {
      const res = await fetch(`${baseURL}/v1/workspace`, { headers });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 'failed';
    }
    samples.push({ seq, sentAt, answeredAt: performance.now(), status });
    await sleep(Math.max(0, CALM_EVERY_MS - (performance.now() - sentAt)));
  }
  return samples;
}

/** The samples of one phase (`from` ms on), with `sentAt` taken from `from`. */
function phase(samples: CalmSample[], from: number, keep: (s: CalmSample) => boolean): CalmRun {
  const run: CalmRun = { latencies: [], sentAt: [], other: {} };
  for (const s of samples.filter(keep)) {
    if (s.status === 200) {
      run.latencies.push(s.answeredAt - s.sentAt);
      run.sentAt.push(s.sentAt - from);
    } else run.other[s.status] = (run.other[s.status] ?? 0) + 1;
  }
  return run;
}

/** `+4.5 s` / `-0.1 s`: when, from a phase's start. */
const at = (msec: number) => `${msec < 0 ? '-' : '+'}${(Math.abs(msec) / 1000).toFixed(1)} s`;

/** The run's slowest answers, `12.3 ms at +4.5 s` each, slowest first: when in the phase the tail happened. */
function slowest(run: CalmRun, count: number): string {
  const order = run.latencies.map((_, i) => i).sort((a, b) => run.latencies[b]! - run.latencies[a]!);
  return order
    .slice(0, count)
    .map((i) => `${ms(run.latencies[i]!)} ms at ${at(run.sentAt[i]!)}`)
    .join(', ');
}

/** Rows of `rate_limits` inserted or updated so far (PostgreSQL's statistics, which lag by up to half a second). */
async function rateLimitWrites(stack: Awaited<ReturnType<typeof startFaultStack>>): Promise<number> {
  await sleep(600);
  const rows = await stack.db.raw<{ rows: Array<{ writes: string }> }>("select n_tup_ins + n_tup_upd as writes from pg_stat_user_tables where relname = 'rate_limits'");
  return Number(rows.rows[0]?.writes ?? 0);
}

/** Runs the flood in a child process; resolves `started` when it begins and `done` with its counts. */
function flood(spec: FloodSpec): { started: Promise<void>; done: Promise<FloodCounts> } {
  // Through `nice`, so every thread of the child (V8's and libuv's too) starts at that priority.
  const node = [process.execPath, '--require', 'tsx/cjs', path.join(__dirname, 'lib', 'flood.ts')];
  const child = spawn('nice', ['-n', String(FLOOD_NICE), ...node], {
    env: { ...process.env, FLOOD_SPEC: JSON.stringify(spec) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((r) => (markStarted = r));
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes('flooding\n')) markStarted();
  });
  const done = new Promise<FloodCounts>((resolve, reject) => {
    child.once('exit', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (code === 0 && line) resolve(JSON.parse(line) as FloodCounts);
      else reject(new Error(`the flood exited ${code}: ${stdout}`));
    });
  });
  return { started, done };
}

async function main(): Promise<void> {
  const cliPath = await temporalCliFromEnv(log);
  log('starting PostgreSQL, Temporal, API and worker…');
  // BENCH_NODE_ARGS (as in bench:turns): Node options of the API and worker, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const traceArgs = TRACE ? ['--require', 'tsx/cjs', '--require', path.join(__dirname, 'lib', 'api-trace.ts')] : [];
  const stack = await startFaultStack({
    temporalCliPath: cliPath,
    extraEnv: { ...LIMITS, ...(TRACE ? { BENCH_TRACE_FILE: TRACE_FILE } : {}) },
    nodeArgs,
    apiNodeArgs: [...API_NODE_ARGS, ...traceArgs],
    log,
  });
  try {
    const key = async (workspaceId: string) => (await stack.repos.apiKeys.create({ workspaceId })).apiKey;
    const calmWs = await stack.repos.workspaces.create({ name: 'calm', credits: 100 });
    const floodWs = await stack.repos.workspaces.create({ name: 'flood', credits: 100 });
    const calmKey = await key(calmWs.id);
    const readers = [await key(floodWs.id), await key(floodWs.id), await key(floodWs.id)];
    const uploader = await key(floodWs.id);
    const agent = await fetch(`${stack.apiURL}/v1/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${uploader}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Flooded' }),
    }).then((r) => r.json() as Promise<{ id: string }>);

    // Three quarters of the clients read (all of them with BENCH_LIMITS_UPLOADS=false), split over the reading keys.
    const readingClients = UPLOADS ? Math.round((CLIENTS * 3) / 4) : CLIENTS;
    const readerClients = (i: number) => Math.floor(readingClients / readers.length) + (i < readingClients % readers.length ? 1 : 0);
    const uploadClients = CLIENTS - readingClients;
    const spec: FloodSpec = {
      baseURL: stack.apiURL,
      seconds: SECONDS,
      targets: [
        ...readers.map((apiKey, i) => ({ apiKey, method: 'GET' as const, path: '/v1/workspace', clients: readerClients(i) })),
        ...(uploadClients > 0 ? [{ apiKey: uploader, method: 'PUT' as const, path: `/v1/agents/${agent.id}/knowledge/flood-{i}.txt`, bodyBytes: 1024, clients: uploadClients }] : []),
      ],
    };
    // The flood's own paths (new connections, reads, uploads, refusals) run at full rate first, so
    // that its first second measures a server that has seen such traffic, not V8 compiling them
    // (its optimising compiler waits for thousands of calls). Then every limit's window passes.
    // BENCH_LIMITS_WARM_SECONDS=0: a server that has served nothing like it.
    if (WARM_SECONDS > 0) {
      log(`warm-up: the same flood for ${WARM_SECONDS} s`);
      await flood({ ...spec, seconds: WARM_SECONDS }).done;
      await sleep(2000);
    }
    const warmEnds = Date.now() + 3000;
    await calmClient(stack.apiURL, calmKey, () => Date.now() < warmEnds);
    log(`quiet: the well-behaved client alone for ${QUIET_SECONDS} s`);
    let calmRunning = true;
    const quietStart = performance.now();
    const calm = calmClient(stack.apiURL, calmKey, () => calmRunning);
    await sleep(QUIET_SECONDS * 1000);

    log(`flood: ${CLIENTS} clients (${readingClients} reading with ${readers.length} keys, ${uploadClients} uploading 1 KiB with one) for ${SECONDS} s`);
    const writesBefore = await rateLimitWrites(stack);
    const run = flood(spec);
    await run.started;
    const floodStart = performance.now();
    const machineAtStart = machineTicks();
    const floodEnds = floodStart + (SECONDS - 1) * 1000;
    let rssPeakDuring = 0;
    const rssTimer = setInterval(() => (rssPeakDuring = Math.max(rssPeakDuring, rssKb(stack.api.pid!, 'VmRSS') ?? 0)), 500);
    await sleep(floodEnds - performance.now());
    calmRunning = false;
    const machineAtEnd = machineTicks();
    const samples = await calm;
    clearInterval(rssTimer);
    // Quiet: answered before the flood started. During: answered after it started (a request in
    // flight at its start counts as during) and sent before its last second.
    const quiet = phase(samples, quietStart, (s) => s.answeredAt < floodStart);
    const during = phase(samples, floodStart, (s) => s.answeredAt >= floodStart && s.sentAt < floodEnds);
    const floodFirst = phase(samples, floodStart, (s) => s.answeredAt >= floodStart && s.sentAt < floodStart + 500);
    const counts = await run.done;
    const limitWrites = (await rateLimitWrites(stack)) - writesBefore;
    // The API's own view, from its /metrics (prom-client's defaults): event-loop delay and GC over its life.
    const metrics = await (await fetch(`${stack.apiURL}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
    const gcSeconds = [...metrics.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    const rssAfter = rssKb(stack.api.pid!, 'VmRSS') ?? 0;
    const rssHighWater = rssKb(stack.api.pid!, 'VmHWM') ?? 0;

    const q = summarise(quiet.latencies);
    const d = summarise(during.latencies);
    const status = (prefix: string) => Object.entries(counts.byStatus).filter(([s]) => s.startsWith(prefix)).reduce((n, [, c]) => n + c, 0);
    const fivexx = status('5');
    const ratio = d.p99 / q.p99;

    out('# bench:limits');
    out();
    out(`machine: ${os.cpus().length} cores, node ${process.version}; flood client at nice ${FLOOD_NICE}; warm-up flood ${WARM_SECONDS} s; API node options: ${API_NODE_ARGS.join(' ') || "none (V8's defaults)"}; API limits ${Object.entries(LIMITS).map(([k, v]) => `${k}=${v}`).join(', ')}; load average ${os.loadavg()[0]!.toFixed(2)} at the end`);
    out();
    out(`flood: ${CLIENTS} concurrent clients for ${SECONDS} s — ${counts.requests} requests (${Math.round(counts.requests / SECONDS)}/s)`);
    out();
    out('| answered | requests |');
    out('|---|---|');
    for (const [s, c] of Object.entries(counts.byStatus).sort()) out(`| ${s} | ${c} |`);
    if (counts.failed > 0) out(`| no answer | ${counts.failed} |`);
    out();
    out(`- answered 429: ${status('429')} (${((100 * status('429')) / counts.requests).toFixed(1)} %)`);
    out(`- answered 5xx: ${fivexx} ${fivexx === 0 ? '(ok)' : '**(must be 0)**'}`);
    out(`- well-behaved client (another workspace, ${1000 / CALM_EVERY_MS} requests/s): quiet p99 ${ms(q.p99)} ms (p50 ${ms(q.p50)}, p90 ${ms(q.p90)}, max ${ms(q.max)}, n=${q.n}); during the flood p99 ${ms(d.p99)} ms (p50 ${ms(d.p50)}, p90 ${ms(d.p90)}, max ${ms(d.max)}, n=${d.n}) — ${ratio.toFixed(2)}× ${ratio <= 2 ? '(within 2×)' : '**(over 2×)**'}`);
    out(`- its five slowest answers, quiet: ${slowest(quiet, 5)}; during the flood: ${slowest(during, 5)}`);
    out(`- its answers in the flood's first 0.5 s (the flood starts at a moment of its own, not in step with this client): ${slowest(floodFirst, 5) || 'none'}`);
    const refusedCalm = Object.entries(during.other).map(([s, c]) => `${s}: ${c}`).join(', ');
    out(`- well-behaved client answers other than 200 during the flood: ${refusedCalm || 'none'}`);
    out(`- API event-loop delay p99 ${ms(gauge('nodejs_eventloop_lag_p99_seconds') * 1000)} ms, max ${ms(gauge('nodejs_eventloop_lag_max_seconds') * 1000)} ms; GC ${ms(gcSeconds * 1000)} ms in all (its /metrics)`);
    out(`- rate-limit counts written to PostgreSQL during the flood: ${limitWrites} rows inserted or updated in \`rate_limits\` (${(limitWrites / counts.requests).toFixed(2)} a flood request)`);
    // Noise to read the tail by: the machine's other work, and CPU time its hypervisor gave away.
    const ticks = machineAtEnd.total - machineAtStart.total;
    const share = (part: number) => ((100 * part) / Math.max(1, ticks)).toFixed(1);
    out(`- the machine during the flood: ${share(machineAtEnd.busy - machineAtStart.busy)} % of its CPU busy, ${share(machineAtEnd.steal - machineAtStart.steal)} % stolen by the hypervisor`);
    out(`- API RSS: peak during the flood ${Math.round(rssPeakDuring / 1024)} MiB, after ${Math.round(rssAfter / 1024)} MiB, high-water mark ${Math.round(rssHighWater / 1024)} MiB`);
    appendResult('limits', { clients: CLIENTS, seconds: SECONDS, requests: counts.requests, answered429Pct: (100 * status('429')) / counts.requests, answered5xx: fivexx, quietP50Ms: q.p50, quietP99Ms: q.p99, floodP50Ms: d.p50, floodP99Ms: d.p99, ratioOfP99s: ratio, cpuBusyPct: Number(share(machineAtEnd.busy - machineAtStart.busy)), cpuStolenPct: Number(share(machineAtEnd.steal - machineAtStart.steal)), apiRssPeakMiB: rssPeakDuring / 1024 });
    if (TRACE) {
      // Epoch times on both sides (each process's clock origin differs by under a millisecond).
      const trace = readApiTrace(TRACE_FILE);
      const epoch = (s: CalmSample) => ({ seq: s.seq, sentAt: performance.timeOrigin + s.sentAt, answeredAt: performance.timeOrigin + s.answeredAt });
      const ok = (keep: (s: CalmSample) => boolean) => samples.filter((s) => s.status === 200 && keep(s)).map(epoch);
      const windows = [
        ['quiet', ok((s) => s.answeredAt < floodStart), quietStart, floodStart],
        ['during the flood', ok((s) => s.answeredAt >= floodStart && s.sentAt < floodEnds), floodStart, floodEnds],
      ] as const;
      for (const [name, traced, from, to] of windows) {
        out(`- traced, ${name}: ${describeWindow(trace, traced, performance.timeOrigin + from, performance.timeOrigin + to, 5).join('; ')}`);
      }
    }
  } finally {
    // A clean stop first, so that options like `--cpu-prof` write what they collected.
    await Promise.all([kill(stack.api, 'SIGTERM'), kill(stack.worker, 'SIGTERM')]);
    await stack.close();
    if (TRACE) rmSync(TRACE_FILE, { force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:limits failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
