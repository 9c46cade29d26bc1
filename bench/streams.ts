import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newId } from '../domain/ids';
import { temporalCliFromEnv } from '../harness/temporal-cli';
import { kill, startFaultStack, type FaultStack } from '../harness/fault-stack';
import { createAgent, createConversation } from './lib/http';
import { clockTicksPerSecond, readStat, rssKb } from './lib/proc';
import { appendResult } from './lib/results';
import { ms, summarise } from './lib/stats';
import type { StreamClientsSpec, ToChild, ToParent } from './lib/stream-clients';

/**
 * `npm run bench:streams`: one API process holding STREAMS idle SSE streams on loopback. The
 * streams follow turns left `running` with their `start` event, as a worker leaves a turn while
 * the model has not answered yet (rows written straight into PostgreSQL, in bulk: 10,000 real
 * turns would need 10,000 model calls held open, and the API cannot tell the difference). The
 * clients run in a child process (bench/lib/stream-clients.ts). Prints the API's RSS and open
 * descriptors, its CPU and PostgreSQL's transactions per second over IDLE_SECONDS of idleness,
 * and the latency from an append (the worker's insert + NOTIFY statement) to the event reaching
 * its client, over NOTIFICATIONS appends to random turns, one at a time. Not a test: it prints figures.
 */

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const IDLE_SECONDS = Number(process.env.BENCH_STREAMS_IDLE_SECONDS ?? 30);
const NOTIFICATIONS = Number(process.env.BENCH_STREAMS_NOTIFICATIONS ?? 500);
/** Streams per API key: the default KEY_STREAMS_MAX, so the keys' limits are the ones shipped. */
const STREAMS_PER_KEY = 100;
const OPEN_CONCURRENCY = 50;
const SETTLE_SECONDS = 12;
const TARGETS = { rssMb: 300, idleCpuPct: 5, p99Ms: 5 };

const t0 = performance.now();
const log = (line: string) => process.stderr.write(`[bench +${((performance.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** STREAMS running turns, each in its own conversation, with keys of STREAMS_PER_KEY streams each. */
async function seedTurns(stack: FaultStack): Promise<StreamClientsSpec['streams']> {
  const workspace = await stack.repos.workspaces.create({ name: 'streams', credits: 100 });
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(STREAMS / STREAMS_PER_KEY); i++) keys.push((await stack.repos.apiKeys.create({ workspaceId: workspace.id })).apiKey);
  const agentId = await createAgent(stack.apiURL, keys[0]!);
  const template = await stack.db('conversations').where({ id: await createConversation(stack.apiURL, keys[0]!, agentId) }).first<{ version: number }>('version');
  const streams: StreamClientsSpec['streams'] = [];
  const conversations = [];
  const turns = [];
  const events = [];
  for (let i = 0; i < STREAMS; i++) {
    const conversationId = newId('conversation');
    const turnId = newId('turn');
    conversations.push({ id: conversationId, workspace_id: workspace.id, agent_id: agentId, version: template.version, parameters: '{}' });
    turns.push({ id: turnId, conversation_id: conversationId, workspace_id: workspace.id, agent_id: agentId, reserved: 0, last_seq: 1 });
    events.push({ turn_id: turnId, seq: 1, type: 'start', data: JSON.stringify({ type: 'start', turnId }) });
    // Round robin: the streams being opened at once belong to different keys, as they would for many users.
    streams.push({ turnId, apiKey: keys[i % keys.length]! });
  }
  await stack.db.batchInsert('conversations', conversations, 1000);
  await stack.db.batchInsert('turns', turns, 1000);
  await stack.db.batchInsert('turn_events', events, 1000);
  return streams;
}

/** The stream clients' process, with a way to wait for its messages. */
function startClients(specFile: string): { child: ChildProcess; next<T extends ToParent['type']>(type: T, match?: (m: Extract<ToParent, { type: T }>) => boolean): Promise<Extract<ToParent, { type: T }>> } {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'lib', 'stream-clients.ts')], {
    env: { ...process.env, STREAMS_SPEC_FILE: specFile },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiters = new Set<(m: ToParent) => boolean>();
  child.on('message', (m: ToParent) => {
    for (const w of waiters) if (w(m)) waiters.delete(w);
  });
  return {
    child,
    next: (type, match) =>
      new Promise((resolve) => {
        waiters.add((m) => {
          if (m.type !== type || (match && !match(m as never))) return false;
          resolve(m as never);
          return true;
        });
      }),
  };
}

async function transactions(stack: FaultStack): Promise<number> {
  const row = await stack.db('pg_stat_database').whereRaw('datname = current_database()').first<{ n: string }>(stack.db.raw('xact_commit + xact_rollback as n'));
  return Number(row?.n ?? 0);
}

async function main(): Promise<void> {
  const cliPath = await temporalCliFromEnv(log);
  log('starting PostgreSQL, Temporal and the API…');
  const stack = await startFaultStack({ temporalCliPath: cliPath, extraEnv: { KEY_STREAMS_MAX: String(STREAMS_PER_KEY) }, log });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ha-bench-streams-'));
  let clients: ReturnType<typeof startClients> | undefined;
  try {
    // No workflow runs here: without the worker, every query PostgreSQL counts is the API's (or ours).
    await kill(stack.worker);
    const apiPid = stack.api.pid!;
    log(`seeding ${STREAMS} running turns…`);
    const streams = await seedTurns(stack);
    const specFile = path.join(dir, 'spec.json');
    await writeFile(specFile, JSON.stringify({ baseURL: stack.apiURL, concurrency: OPEN_CONCURRENCY, streams } satisfies StreamClientsSpec));

    const rssBeforeMb = (rssKb(apiPid, 'VmRSS') ?? 0) / 1024;
    log(`opening ${STREAMS} streams…`);
    const openedAt = performance.now();
    clients = startClients(specFile);
    const opened = await clients.next('opened');
    if (opened.failed > 0) throw new Error(`${opened.failed} streams were refused; first: ${opened.firstError}`);
    const openSeconds = (performance.now() - openedAt) / 1000;
    // PostgreSQL backends flush their counters up to 10 s after going idle: the opening's must be in before the idle count starts.
    log(`${opened.opened} open in ${openSeconds.toFixed(1)} s; settling ${SETTLE_SECONDS} s`);
    await sleep(SETTLE_SECONDS * 1000);
    const apiFds = fds(apiPid);
    const clientFds = fds(clients.child.pid!);

    log(`idle for ${IDLE_SECONDS} s…`);
    const cpuBefore = readStat(apiPid)!.own;
    const xactBefore = await transactions(stack);
    const idleStart = performance.now();
    await sleep(IDLE_SECONDS * 1000);
    const cpuAfter = readStat(apiPid)!.own;
    const xactAfter = await transactions(stack);
    const idleSeconds = (performance.now() - idleStart) / 1000;
    const idleCpuPct = ((((cpuAfter - cpuBefore) * 1000) / clockTicksPerSecond()) / (idleSeconds * 1000)) * 100;
    // Two of these are the bench's own reads of the counter.
    const queriesPerSecond = (xactAfter - xactBefore - 2) / idleSeconds;
    const rssMb = (rssKb(apiPid, 'VmRSS') ?? 0) / 1024;

    log('IPC hop: 50 pings…');
    const pings: number[] = [];
    for (let id = 0; id < 50; id++) {
      const sent = performance.now();
      const pong = clients.next('pong', (m) => m.id === id);
      clients.child.send({ type: 'ping', id } satisfies ToChild);
      await pong;
      pings.push(performance.now() - sent);
    }

    log(`${NOTIFICATIONS} appends to random turns, one at a time…`);
    clients.child.send({ type: 'resetLoopDelay' } satisfies ToChild);
    const latencies: number[] = [];
    const appendRoundTrips: number[] = [];
    const fromReply: number[] = [];
    for (let i = 0; i < NOTIFICATIONS; i++) {
      const { turnId } = streams[Math.floor(Math.random() * streams.length)]!;
      const text = `n${i}`;
      const received = clients.next('text', (m) => m.turnId === turnId && m.text === text);
      const sent = performance.now();
      await stack.repos.turns.append({ turnId, events: [{ type: 'text', text }] });
      appendRoundTrips.push(performance.now() - sent);
      const late = setTimeout(() => log(`no event for ${turnId} after 5 s`), 5000);
      await received;
      clearTimeout(late);
      latencies.push(performance.now() - sent);
      fromReply.push(latencies.at(-1)! - appendRoundTrips.at(-1)!);
      await sleep(10);
    }
    const stats = clients.next('stats');
    clients.child.send({ type: 'stats' } satisfies ToChild);
    const clientStats = await stats;

    const l = summarise(latencies);
    const a = summarise(appendRoundTrips);
    const r = summarise(fromReply);
    const p = summarise(pings);
    out('# bench:streams');
    out();
    out(`machine: ${os.cpus().length} cores, node ${process.version}; load average ${os.loadavg()[0]!.toFixed(2)} at the end`);
    out();
    out('| measure | measured | target | |');
    out('|---|---|---|---|');
    out(`| streams open on one API process | ${clientStats.open} (opened in ${openSeconds.toFixed(1)} s, ${opened.retried} retried after a 429; ${clientStats.ended} ended early) | ${STREAMS} | ${met(clientStats.open === STREAMS)} |`);
    out(`| API RSS before the streams (VmRSS) | ${rssBeforeMb.toFixed(0)} MB | — | |`);
    out(`| API RSS with them open, after ${Math.round(idleSeconds)} s idle (VmRSS) | ${rssMb.toFixed(0)} MB | < ${TARGETS.rssMb} MB | ${met(rssMb < TARGETS.rssMb)} |`);
    out(`| API CPU at idle, ${Math.round(idleSeconds)} s | ${idleCpuPct.toFixed(2)} % of a core | < ${TARGETS.idleCpuPct} % | ${met(idleCpuPct < TARGETS.idleCpuPct)} |`);
    out(`| PostgreSQL transactions/s at idle (pg_stat_database) | ${queriesPerSecond.toFixed(2)} | — | |`);
    out(`| append (insert + NOTIFY) → event in the client, p50 / p99 (n=${l.n}) | ${ms(l.p50)} / ${ms(l.p99)} ms (max ${ms(l.max)}) | p99 < ${TARGETS.p99Ms} ms | ${met(l.p99 < TARGETS.p99Ms)} |`);
    out(`| the append's own round trip (its commit sends the NOTIFY), p50 / p99 | ${ms(a.p50)} / ${ms(a.p99)} ms | — | |`);
    out(`| append's reply → event in the client, p50 / p99 | ${ms(r.p50)} / ${ms(r.p99)} ms (max ${ms(r.max)}) | — | |`);
    out(`| included above: the IPC hop back to the bench, p50 / p99 | ${ms(p.p50)} / ${ms(p.p99)} ms | — | |`);
    out(`| client process event-loop delay during the appends, p99 / max | ${ms(clientStats.loopDelayP99Ms)} / ${ms(clientStats.loopDelayMaxMs)} ms | — | |`);
    out(`| open descriptors: API / clients | ${apiFds} / ${clientFds} | — | |`);
    appendResult('streams', {
      streams: clientStats.open,
      openSeconds,
      apiRssBeforeMb: rssBeforeMb,
      apiRssOpenMb: rssMb,
      idleCpuPct,
      idleTransactionsPerSecond: queriesPerSecond,
      appendToEventP50Ms: l.p50,
      appendToEventP99Ms: l.p99,
      replyToEventP50Ms: r.p50,
      replyToEventP99Ms: r.p99,
    });
  } finally {
    clients?.child.kill();
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:streams failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
