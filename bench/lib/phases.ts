import type { TimedTurn } from './breakdown';
import type { BenchConfig } from './config';
import { cpuBetween, type CpuTargets, sampleCpu } from './cpu';
import { createConversation } from './http';
import { rssKb } from './proc';
import { askTurn, directFirstDelta, type TurnResult } from './sse-client';
import type { Log, Stack } from './stack';
import { summarise } from './stats';

/** The two measured phases: sequential turns (latency) and concurrent loops (throughput). */

const target = (stack: Stack, api = 0) => ({ baseURL: stack.baseURLs[api] ?? stack.baseURL, apiKey: stack.apiKey });

/** Every stream checked, every failure counted by kind (with a few examples). */
export class Tally {
  streams = 0;
  events = 0;
  lostOrReordered = 0;
  failures = 0;
  readonly byKind = new Map<string, number>();
  readonly examples: string[] = [];

  record(r: TurnResult): void {
    if (r.failure?.kind !== 'http' && r.failure?.kind !== 'exception') this.streams++;
    this.events += r.events;
    if (r.failure) this.fail(r.failure.kind, r.failure.message);
    if (r.failure?.kind === 'invalid') this.lostOrReordered++;
  }

  fail(kind: string, message: string): void {
    this.failures++;
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    if (this.examples.length < 5) this.examples.push(`${kind}: ${message}`);
  }

  describe(): string {
    return this.failures === 0 ? 'none' : [...this.byKind].map(([k, n]) => `${k} ${n}`).join(', ');
  }
}

/** Sequential turns, each in a fresh conversation, each followed by the same request sent straight to the model server. */
export async function latencyPhase(stack: Stack, agentId: string, cfg: BenchConfig, turns: number, tally: Tally, modelArrival: () => number | undefined) {
  const service: number[] = [];
  const direct: number[] = [];
  const timed: TimedTurn[] = [];
  for (let i = 0; i < turns; i++) {
    const conversationId = await createConversation(stack.baseURL, stack.apiKey, agentId);
    stack.model.requests.splice(0);
    const r = await askTurn({ ...target(stack), conversationId, text: `Question ${i + 1}: say your fixed reply.`, reply: cfg.reply, timeoutMs: cfg.turnTimeoutMs });
    tally.record(r);
    if (r.failure || r.firstTextMs === undefined) continue;
    service.push(r.firstTextMs);
    const modelRequestAt = modelArrival();
    if (r.turnId && modelRequestAt !== undefined) {
      timed.push({ turnId: r.turnId, requestAt: r.requestAt, modelRequestAt, firstTextAt: r.requestAt + r.firstTextMs });
    }
    const request = stack.model.requests.find((q) => q.path.endsWith('/chat/completions'));
    if (!request) throw new Error('the model server saw no request for a finished turn');
    direct.push(await directFirstDelta({ modelURL: stack.model.url, body: request.body, reply: cfg.reply, timeoutMs: cfg.turnTimeoutMs }));
  }
  stack.model.requests.splice(0);
  return { service, direct, timed };
}

/**
 * `concurrency` loops, each asking in its own conversation (a new one every few turns), for
 * `seconds`. Loop i talks to API i mod n throughout (its conversations stay on one API, as a
 * client behind a load balancer with affinity would); turns are counted per API, and the ids of
 * the window's turns are kept so that their workers can be looked up (bench/lib/attribution.ts).
 */
export async function loadPhase(stack: Stack, agentId: string, cfg: BenchConfig, tally: Tally, log: Log) {
  const pids: CpuTargets = {
    api: stack.apis.map((a) => a.pid),
    worker: stack.workers.map((w) => w.pid),
    temporal: stack.temporalPids,
    postgres: stack.postgresPid,
    postgresDatabases: stack.postgresDatabases,
    temporalDatabases: stack.temporalDatabases,
  };
  const firstText: number[] = [];
  const total: number[] = [];
  let inWindow = 0;
  let afterWindow = 0;
  const perApi = stack.apis.map(() => 0);
  const turnIds: string[] = [];
  const errorsBefore = tally.failures;
  const begin = sampleCpu(pids);
  const deadline = begin.at + cfg.seconds * 1000;
  // Sampled at the deadline, not after the in-flight turns drain, so CPU and turns cover the same window.
  const end = new Promise<ReturnType<typeof sampleCpu>>((resolve) => setTimeout(() => resolve(sampleCpu(pids)), cfg.seconds * 1000));
  const trim = setInterval(() => stack.model.requests.splice(0), 1000);
  const rssMb = (all: number[]) => all.map((pid) => ((rssKb(pid, 'VmRSS') ?? 0) / 1024).toFixed(0)).join(' + ');
  const progress = setInterval(
    () => log(`load: ${inWindow} turns, ${tally.failures - errorsBefore} errors; RSS now: API ${rssMb(pids.api)} MB, worker ${rssMb(pids.worker)} MB`),
    10_000,
  );

  const loop = async (index: number) => {
    const api = index % stack.baseURLs.length;
    let conversationId: string | undefined;
    let inConversation = 0;
    for (let turns = 0; performance.now() < deadline && turns < cfg.maxTurnsPerLoop; turns++) {
      if (conversationId === undefined || inConversation >= cfg.turnsPerConversation) {
        try {
          conversationId = await createConversation(target(stack, api).baseURL, stack.apiKey, agentId);
          inConversation = 0;
        } catch (e) {
          tally.fail('http', `start conversation: ${e instanceof Error ? e.message : String(e)}`);
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
      }
      const r = await askTurn({ ...target(stack, api), conversationId, text: `Loop ${index} turn ${turns + 1}: say your fixed reply.`, reply: cfg.reply, timeoutMs: cfg.turnTimeoutMs });
      inConversation++;
      tally.record(r);
      if (r.failure) {
        conversationId = undefined; // e.g. a turn still running after a timeout: go on elsewhere
        continue;
      }
      if (performance.now() <= deadline) {
        inWindow++;
        perApi[api] = (perApi[api] ?? 0) + 1;
        if (r.turnId) turnIds.push(r.turnId);
        if (r.firstTextMs !== undefined) firstText.push(r.firstTextMs);
        total.push(r.totalMs);
      } else afterWindow++;
    }
  };
  try {
    await Promise.all(Array.from({ length: cfg.concurrency }, (_, i) => loop(i)));
  } finally {
    clearInterval(trim);
    clearInterval(progress);
  }
  const cpu = cpuBetween(begin, await end);
  return { inWindow, afterWindow, perApi, turnIds, errors: tally.failures - errorsBefore, firstText: summarise(firstText), total: summarise(total), cpu };
}

