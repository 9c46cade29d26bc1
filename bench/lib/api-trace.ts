/**
 * Preloaded into the API by `npm run bench:limits` when BENCH_LIMITS_TRACE is set (never in
 * production): writes to BENCH_TRACE_FILE, one line each, every GC pause of the API
 * (`gc <start> <ms> <kind>`) and the time the API spent on each request of the well-behaved client
 * (`calm <seq> <start> <ms>`: from its headers parsed to its answer written), times in epoch ms.
 * From these the bench tells how much of the client's latency was the API's and which answers a GC
 * paused (bench/lib/calm-trace.ts). Observers only (a GC observer and Node's HTTP diagnostics
 * channels), so it changes nothing the API does.
 */
import { subscribe } from 'node:diagnostics_channel';
import { openSync, writeSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

/** The request header that marks (and numbers) a request of the well-behaved client. */
export const CALM_HEADER = 'x-bench-calm';

const file = process.env.BENCH_TRACE_FILE;
if (file) {
  const fd = openSync(file, 'w');
  const epoch = (t: number) => (performance.timeOrigin + t).toFixed(2);
  const line = (text: string) => writeSync(fd, `${text}\n`);
  new PerformanceObserver((list) => {
    // A GC entry's `detail.kind` (perf_hooks' NODE_PERFORMANCE_GC_* constants); this @types/node does not declare it.
    for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
      line(`gc ${epoch(e.startTime)} ${e.duration.toFixed(2)} ${e.detail?.kind ?? ''}`);
    }
  }).observe({ entryTypes: ['gc'] });
  const started = new WeakMap<IncomingMessage, number>();
  subscribe('http.server.request.start', (message) => {
    const { request } = message as { request: IncomingMessage };
    if (request.headers[CALM_HEADER] !== undefined) started.set(request, performance.now());
  });
  subscribe('http.server.response.finish', (message) => {
    const { request } = message as { request: IncomingMessage };
    const start = started.get(request);
    if (start !== undefined) line(`calm ${String(request.headers[CALM_HEADER])} ${epoch(start)} ${(performance.now() - start).toFixed(2)}`);
  });
}
