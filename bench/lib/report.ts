import { ms, type Summary } from './stats';

/** The figures of one run and the Markdown table that compares them with the targets. */

const TARGETS = {
  overheadP50Ms: 40,
  overheadP99Ms: 200,
  turnsPerSecond: 25,
} as const;

export interface Results {
  concurrency: number;
  seconds: number;
  service: Summary;
  direct: Summary;
  turnsPerSecond: number;
  loadTurns: number;
  errors: number;
  streamsChecked: number;
  lostOrReordered: number;
  apiCpuMsPerTurn: number | undefined;
  workerCpuMsPerTurn: number | undefined;
  temporalCpuMsPerTurn: number | undefined;
  postgresCpuMsPerTurn: number | undefined;
  apiPeakRssMb: number | undefined;
  workerPeakRssMb: number | undefined;
}

const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const num = (v: number | undefined, digits = 1) => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits));

export function markdownTable(r: Results): string {
  const overheadP50 = r.service.p50 - r.direct.p50;
  const overheadP99 = r.service.p99 - r.direct.p99;
  const rows: Array<[string, string, string, string]> = [
    ['request → first `text` event, through the service (p50 / p99)', `${ms(r.service.p50)} / ${ms(r.service.p99)} ms`, '—', '—'],
    ['request → first content delta, straight to the model server (p50 / p99)', `${ms(r.direct.p50)} / ${ms(r.direct.p99)} ms`, '—', '—'],
    ['service overhead, p50', `${ms(overheadP50)} ms`, `≤ ${TARGETS.overheadP50Ms} ms`, met(overheadP50 <= TARGETS.overheadP50Ms)],
    ['service overhead, p99', `${ms(overheadP99)} ms`, `≤ ${TARGETS.overheadP99Ms} ms`, met(overheadP99 <= TARGETS.overheadP99Ms)],
    [
      `sustained turns/s, concurrency ${r.concurrency} for ${r.seconds} s`,
      `${num(r.turnsPerSecond)} (${r.loadTurns} turns)`,
      `≥ ${TARGETS.turnsPerSecond}`,
      met(r.turnsPerSecond >= TARGETS.turnsPerSecond),
    ],
    ['errors during the load phase', String(r.errors), '0', met(r.errors === 0)],
    ['lost or reordered events', `${r.lostOrReordered} (${r.streamsChecked} streams checked)`, '0', met(r.lostOrReordered === 0 && r.streamsChecked > 0)],
    ['API CPU per turn', `${num(r.apiCpuMsPerTurn)} ms`, '—', '—'],
    ['worker CPU per turn', `${num(r.workerCpuMsPerTurn)} ms`, '—', '—'],
    ['(context) Temporal dev server / PostgreSQL CPU per turn', `${num(r.temporalCpuMsPerTurn)} / ${num(r.postgresCpuMsPerTurn)} ms`, '—', '—'],
    ['API peak RSS (VmHWM)', `${num(r.apiPeakRssMb, 0)} MB`, '—', '—'],
    ['worker peak RSS (VmHWM)', `${num(r.workerPeakRssMb, 0)} MB`, '—', '—'],
  ];
  return [
    '| measure | measured | target | |',
    '|---|---|---|---|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}
