import { ms, type Summary } from './stats';

/** The figures of one run and the Markdown table that compares them with the targets. */

const TARGETS = {
  // Issue 38's targets (ratios to the bare chain travel between machines; the milliseconds were set on the 2026-11-23 machine).
  overheadP50Ms: 15,
  overheadP99Ms: 200,
  turnsPerSecond: 25,
  bareSharePct: 75,
  serviceCpuMsPerTurn: 25,
  /** The worker's peak RSS as a multiple of the bare chain's worker's, in the same run. */
  workerRssOfBare: 1.3,
} as const;

/** The sum, or undefined when any part was not measured. */
const sum = (...parts: Array<number | undefined>) => (parts.some((p) => p === undefined) ? undefined : parts.reduce<number>((a, b) => a + (b ?? 0), 0));

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
  /** A cluster's persistence: the backends of its databases (undefined with the dev server). */
  temporalPostgresCpuMsPerTurn: number | undefined;
  postgresCpuMsPerTurn: number | undefined;
  temporal: 'dev' | 'cluster';
  apiPeakRssMb: number | undefined;
  workerPeakRssMb: number | undefined;
  /** The bare chain's worker, in the same run. */
  bareWorkerPeakRssMb: number | undefined;
  apis: number;
  workers: number;
  /** The bare Temporal chain at the same concurrency (bench/bare/). */
  bareWorkflowsPerSecond: number;
  bareErrors: number;
  bareCpuMsPerWorkflow: Record<'api' | 'worker' | 'temporal' | 'temporalPostgres' | 'postgres', number | undefined>;
  /** Turns of the load window served by each API and each worker process. */
  perApi: number[];
  perWorker: number[];
}

const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const num = (v: number | undefined, digits = 1) => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits));

export function markdownTable(r: Results): string {
  const overheadP50 = r.service.p50 - r.direct.p50;
  const overheadP99 = r.service.p99 - r.direct.p99;
  const serviceCpu = sum(r.apiCpuMsPerTurn, r.workerCpuMsPerTurn, r.postgresCpuMsPerTurn);
  const bareCpu = sum(r.bareCpuMsPerWorkflow.api, r.bareCpuMsPerWorkflow.worker);
  const cpuOfBare = serviceCpu === undefined || !bareCpu ? undefined : serviceCpu / bareCpu;
  const rssOfBare = r.workerPeakRssMb === undefined || !r.bareWorkerPeakRssMb ? undefined : r.workerPeakRssMb / r.bareWorkerPeakRssMb;
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
    ['bare Temporal chain (one activity, one local activity), same concurrency', `${num(r.bareWorkflowsPerSecond)} workflows/s, ${r.bareErrors} errors`, '—', '—'],
    ['our turns/s as % of the bare chain', `${num((r.turnsPerSecond / r.bareWorkflowsPerSecond) * 100, 0)} %`, `≥ ${TARGETS.bareSharePct} %`, met(r.turnsPerSecond / r.bareWorkflowsPerSecond >= TARGETS.bareSharePct / 100)],
    ['API CPU per turn (bare: client per workflow)', `${num(r.apiCpuMsPerTurn)} ms (bare ${num(r.bareCpuMsPerWorkflow.api)})`, '—', '—'],
    ['worker CPU per turn (bare: per workflow)', `${num(r.workerCpuMsPerTurn)} ms (bare ${num(r.bareCpuMsPerWorkflow.worker)})`, '—', '—'],
    r.temporal === 'cluster'
      ? [
          '(context) Temporal cluster / its PostgreSQL / our PostgreSQL CPU per turn (bare)',
          `${num(r.temporalCpuMsPerTurn)} / ${num(r.temporalPostgresCpuMsPerTurn)} / ${num(r.postgresCpuMsPerTurn)} ms (bare ${num(r.bareCpuMsPerWorkflow.temporal)} / ${num(r.bareCpuMsPerWorkflow.temporalPostgres)} / ${num(r.bareCpuMsPerWorkflow.postgres)})`,
          '—',
          '—',
        ]
      : [
          '(context) Temporal dev server / PostgreSQL CPU per turn (bare)',
          `${num(r.temporalCpuMsPerTurn)} / ${num(r.postgresCpuMsPerTurn)} ms (bare ${num(r.bareCpuMsPerWorkflow.temporal)} / ${num(r.bareCpuMsPerWorkflow.postgres)})`,
          '—',
          '—',
        ],
    [
      'API + worker + PostgreSQL CPU per turn, as a multiple of the bare chain\'s client + worker per workflow',
      `${num(cpuOfBare, 1)} ×`,
      '—',
      '—',
    ],
    [
      'API + worker + PostgreSQL CPU per turn',
      `${num(serviceCpu)} ms`,
      `≤ ${TARGETS.serviceCpuMsPerTurn} ms`,
      met((serviceCpu ?? Infinity) <= TARGETS.serviceCpuMsPerTurn),
    ],
    ['API peak RSS (VmHWM)', `${num(r.apiPeakRssMb, 0)} MB`, '—', '—'],
    [
      'worker peak RSS (VmHWM), and as a multiple of the bare chain\'s worker',
      `${num(r.workerPeakRssMb, 0)} MB, ${num(rssOfBare, 2)} × (bare ${num(r.bareWorkerPeakRssMb, 0)} MB)`,
      `≤ ${TARGETS.workerRssOfBare} ×`,
      met((rssOfBare ?? Infinity) <= TARGETS.workerRssOfBare),
    ],
  ];
  if (r.apis > 1 || r.workers > 1) {
    rows.push(
      [`turns served by each of ${r.apis} API processes`, r.perApi.join(' / '), 'all > 0', met(r.perApi.every((n) => n > 0))],
      [`turns served by each of ${r.workers} worker processes`, r.perWorker.join(' / '), 'all > 0', met(r.perWorker.every((n) => n > 0))],
    );
  }
  return [
    '| measure | measured | target | |',
    '|---|---|---|---|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}
