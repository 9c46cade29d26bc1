import { clockTicksPerSecond, cmdline, machineTicks, treeTicks, treeTicksByPid } from './proc';

/** CPU time of the measured processes over a phase, from /proc tick counters. */

export interface CpuTargets {
  /** Every API process (or, for the bare baseline, its client process). */
  api: number[];
  /** Every worker process. */
  worker: number[];
  /** The dev server's pid, or a cluster's four service processes; empty when not on this machine. */
  temporal: number[];
  postgres: number | undefined;
  /**
   * The bench's databases (ours, and a cluster's persistence and visibility): on a shared
   * PostgreSQL server, backends of other databases are left out.
   */
  postgresDatabases: string[] | undefined;
  /** A cluster's persistence and visibility databases: their backends are counted apart, as Temporal's. */
  temporalDatabases: string[];
}

/** A PostgreSQL backend's title names its database and client ("postgres: user db 127.0.0.1(5432) idle"). */
const ourBackend = (databases: string[]) => (pid: number) => {
  const title = cmdline(pid);
  return !/\(\d+\)|\[local\]/.test(title) || databases.some((database) => title.includes(` ${database} `));
};
/** Only the client backends of these databases (no background process: those count as ours). */
const backendOf = (databases: string[]) => (pid: number) => {
  const title = cmdline(pid);
  return databases.some((database) => title.includes(` ${database} `));
};

interface CpuSample {
  at: number;
  /** Ticks per process tree (undefined: not on this machine). */
  ticks: Record<Exclude<keyof CpuTargets, 'postgresDatabases' | 'temporalDatabases' | 'postgres'>, number | undefined>;
  /**
   * PostgreSQL per process: on a shared server only our database's backends count, and a backend
   * that exits takes its ticks along (an idle pool connection closing), so the phase's CPU is the
   * sum of each backend's own increase, never negative.
   */
  postgres: Map<number, number> | undefined;
  /** The same for the backends serving a cluster's databases (Temporal's persistence). */
  temporalPostgres: Map<number, number> | undefined;
  /** This bench process (clients and the in-process model server), µs. */
  benchMicros: number;
  machine: { busy: number; total: number; steal: number };
}

interface CpuUsage {
  seconds: number;
  /** CPU ms used by each process tree over the phase. */
  ms: Record<'api' | 'worker' | 'temporal' | 'temporalPostgres' | 'postgres' | 'bench' | 'other', number | undefined>;
  /** Share of the whole machine that was busy (all cores), 0–100; and of it, stolen by the hypervisor. */
  machineBusyPct: number;
  stealPct: number;
}

const TICK_MS = 1000 / clockTicksPerSecond();

/** Ticks of several process trees together; undefined when any of them is gone. */
function treesTicks(roots: number[]): number | undefined {
  let sum = 0;
  for (const root of roots) {
    const ticks = treeTicks(root);
    if (ticks === undefined) return undefined;
    sum += ticks;
  }
  return sum;
}

export function sampleCpu(pids: CpuTargets): CpuSample {
  const usage = process.cpuUsage();
  return {
    at: performance.now(),
    ticks: {
      api: treesTicks(pids.api),
      worker: treesTicks(pids.worker),
      temporal: pids.temporal.length === 0 ? undefined : treesTicks(pids.temporal),
    },
    postgres:
      pids.postgres === undefined
        ? undefined
        : treeTicksByPid(pids.postgres, (pid) => (pids.postgresDatabases ? ourBackend(pids.postgresDatabases)(pid) : true) && !backendOf(pids.temporalDatabases)(pid)),
    temporalPostgres: pids.postgres === undefined || pids.temporalDatabases.length === 0 ? undefined : treeTicksByPid(pids.postgres, backendOf(pids.temporalDatabases)),
    benchMicros: usage.user + usage.system,
    machine: machineTicks(),
  };
}

export function cpuBetween(a: CpuSample, b: CpuSample): CpuUsage {
  const delta = (k: keyof CpuSample['ticks']) => {
    const x = a.ticks[k];
    const y = b.ticks[k];
    return x === undefined || y === undefined ? undefined : (y - x) * TICK_MS;
  };
  const perProcess = (x: Map<number, number> | undefined, y: Map<number, number> | undefined) => {
    if (!x || !y) return undefined;
    let ticks = 0;
    for (const [pid, end] of y) ticks += Math.max(0, end - (x.get(pid) ?? 0));
    return ticks * TICK_MS;
  };
  const total = b.machine.total - a.machine.total;
  const ours = {
    api: delta('api'),
    worker: delta('worker'),
    temporal: delta('temporal'),
    temporalPostgres: perProcess(a.temporalPostgres, b.temporalPostgres),
    postgres: perProcess(a.postgres, b.postgres),
    bench: (b.benchMicros - a.benchMicros) / 1000,
  };
  const oursMs = Object.values(ours).reduce<number>((sum, v) => sum + (v ?? 0), 0);
  return {
    seconds: (b.at - a.at) / 1000,
    // Other sessions, builds or tests on a shared machine compete for the same cores.
    ms: { ...ours, other: Math.max(0, (b.machine.busy - b.machine.steal - a.machine.busy + a.machine.steal) * TICK_MS - oursMs) },
    machineBusyPct: total > 0 ? ((b.machine.busy - a.machine.busy) / total) * 100 : Number.NaN,
    stealPct: total > 0 ? ((b.machine.steal - a.machine.steal) / total) * 100 : Number.NaN,
  };
}
