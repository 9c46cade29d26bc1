import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Linux /proc readers: CPU ticks of a process tree (utime+stime, plus reaped children's
 * cutime+cstime, so short-lived children such as PostgreSQL backends are not lost), peak RSS
 * (VmHWM), and whole-machine CPU busy time. Everything answers `undefined` when /proc has no
 * such process (e.g. a PostgreSQL on another machine).
 */

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`, usually 100). */
export function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (Number.isInteger(value) && value > 0) return value;
  } catch {
    // fall through to the usual value
  }
  return 100;
}

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime, in clock ticks. */
  own: number;
  /** cutime + cstime: children that have exited and been reaped. */
  reaped: number;
}

export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm may contain spaces and parentheses: it ends at the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' '); // fields[0] is field 3 (state)
  const field = (n: number) => Number(fields[n - 3]);
  return {
    pid,
    ppid: field(4),
    comm: text.slice(open + 1, close),
    own: field(14) + field(15),
    reaped: field(16) + field(17),
  };
}

function allStats(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) out.push(stat);
  }
  return out;
}

/** The command line, arguments joined by spaces ('' when unreadable). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/**
 * CPU ticks of `root` and every live descendant, with the ticks of reaped children; undefined
 * when `root` is gone. With `include`, only descendants it accepts count, and reaped children
 * do not (they cannot be told apart): for a PostgreSQL server other databases' backends share.
 */
export function treeTicks(root: number, include?: (pid: number) => boolean): number | undefined {
  const byPid = treeTicksByPid(root, include);
  return byPid && [...byPid.values()].reduce((a, b) => a + b, 0);
}

/** As treeTicks, per process (the reaped children's ticks counted under the root). */
export function treeTicksByPid(root: number, include?: (pid: number) => boolean): Map<number, number> | undefined {
  const rootStat = readStat(root);
  if (!rootStat) return undefined;
  const children = new Map<number, ProcStat[]>();
  for (const s of allStats()) {
    const list = children.get(s.ppid);
    if (list) list.push(s);
    else children.set(s.ppid, [s]);
  }
  const ticks = new Map<number, number>();
  const stack: ProcStat[] = [rootStat];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (seen.has(s.pid)) continue;
    seen.add(s.pid);
    if (s.pid !== root && include && !include(s.pid)) continue;
    ticks.set(s.pid, s.own + (include ? 0 : s.reaped));
    stack.push(...(children.get(s.pid) ?? []));
  }
  return ticks;
}

/** Peak (VmHWM) or current (VmRSS) resident set size of a process, in kB. */
export function rssKb(pid: number, which: 'VmHWM' | 'VmRSS' = 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${which}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The first process whose command line contains every one of `parts` (NUL-separated args joined by spaces). */
export function findProcess(parts: string[]): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const line = cmdline(Number(name));
    if (parts.every((p) => line.includes(p))) return Number(name);
  }
  return undefined;
}

/**
 * Whole-machine CPU time from /proc/stat, in ticks: busy (everything but idle and iowait), total,
 * and steal (time the hypervisor gave this VM's CPUs to someone else).
 */
export function machineTicks(): { busy: number; total: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice — guest time is already in user.
  const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total, steal: values[7] ?? 0 };
}
