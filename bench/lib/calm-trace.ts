import { readFileSync } from 'node:fs';
import { ms, percentile } from './stats';

/** A request of the well-behaved client as its client saw it: sequence number, sent and answered (epoch ms). */
export interface TracedSample {
  seq: number;
  sentAt: number;
  answeredAt: number;
}

/** What the API's trace (bench/lib/api-trace.ts) recorded. */
interface ApiTrace {
  gcs: Array<{ start: number; ms: number; kind: string }>;
  /** By sequence number: when the API began the request and how long it took (ms). */
  calm: Map<number, { start: number; ms: number }>;
}

export function readApiTrace(path: string): ApiTrace {
  const trace: ApiTrace = { gcs: [], calm: new Map() };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const [what, a, b, c] = line.split(' ');
    if (what === 'gc') trace.gcs.push({ start: Number(a), ms: Number(b), kind: GC_KINDS[c ?? ''] ?? `kind ${c}` });
    if (what === 'calm') trace.calm.set(Number(a), { start: Number(b), ms: Number(c) });
  }
  return trace;
}

/** `PerformanceEntry.detail.kind` of a GC (perf_hooks constants). */
const GC_KINDS: Record<string, string> = { '1': 'scavenge', '2': 'minor mark-sweep', '4': 'mark-compact', '8': 'incremental marking', '16': 'weak callbacks' };

/**
 * Lines for the report: the client's latency split into the API's part and the rest (its own
 * client, the network, waiting to be read), the API's GC pauses in the window, and for the slowest
 * answers, each part and the pauses they overlapped.
 */
export function describeWindow(trace: ApiTrace, samples: readonly TracedSample[], from: number, to: number, slowest: number): string[] {
  const traced = samples.filter((s) => trace.calm.has(s.seq));
  const api = traced.map((s) => trace.calm.get(s.seq)!.ms);
  const rest = traced.map((s, i) => s.answeredAt - s.sentAt - api[i]!);
  const pct = (xs: number[]) => `p50 ${ms(percentile(xs, 50))}, p90 ${ms(percentile(xs, 90))}, p99 ${ms(percentile(xs, 99))}`;
  const gcs = trace.gcs.filter((g) => g.start >= from && g.start < to);
  const kinds = new Map<string, number[]>();
  for (const g of gcs) kinds.set(g.kind, [...(kinds.get(g.kind) ?? []), g.ms]);
  const gcLine = [...kinds].map(([kind, xs]) => `${xs.length} ${kind} (mean ${ms(xs.reduce((a, b) => a + b, 0) / xs.length)}, max ${ms(Math.max(...xs))} ms)`).join(', ');
  const order = [...traced].sort((a, b) => b.answeredAt - b.sentAt - (a.answeredAt - a.sentAt)).slice(0, slowest);
  const slow = order.map((s) => {
    const paused = trace.gcs.filter((g) => g.start + g.ms >= s.sentAt && g.start <= s.answeredAt).map((g) => `${g.kind} ${ms(g.ms)}`);
    return `${ms(s.answeredAt - s.sentAt)} ms at +${((s.sentAt - from) / 1000).toFixed(1)} s (API ${ms(trace.calm.get(s.seq)!.ms)}${paused.length ? `; GC: ${paused.join(', ')}` : ''})`;
  });
  return [
    `in the API ${pct(api)} ms; outside it (client, loopback, waiting to be read) ${pct(rest)} ms; n=${traced.length}`,
    `the API's GC pauses: ${gcLine || 'none'}`,
    `slowest answers: ${slow.join('; ')}`,
  ];
}
