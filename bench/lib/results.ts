import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The run-by-run history of the benches: every run appends one JSON line to bench/results.jsonl
 * (`BENCH_RESULTS_FILE` elsewhere, `off` for none). bench/README.md keeps one table of record per
 * bench; this file keeps the rest, so no run log has to be written up by hand.
 */
const RESULTS_FILE = process.env.BENCH_RESULTS_FILE ?? path.join(__dirname, '..', 'results.jsonl');

type Figure = number | string | boolean | null | undefined;

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: __dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Numbers to at most two decimals, a figure not measured to null (JSON has no undefined). */
const tidy = (v: Figure): Exclude<Figure, undefined> => (v === undefined ? null : typeof v === 'number' ? (Number.isFinite(v) ? Number(v.toFixed(2)) : null) : v);

/** Appends one line: date, commit (and whether the tree had local changes), machine, bench, figures. */
export function appendResult(bench: string, figures: Record<string, Figure>): void {
  if (RESULTS_FILE === 'off') return;
  const status = git(['status', '--porcelain', '--untracked-files=no']);
  const line = {
    date: new Date().toISOString(),
    commit: git(['rev-parse', '--short', 'HEAD']) ?? null,
    ...(status ? { dirty: true } : {}),
    bench,
    machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    node: process.version,
    loadAverage: tidy(os.loadavg()[0]),
    ...Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, tidy(v)])),
  };
  try {
    fs.appendFileSync(RESULTS_FILE, `${JSON.stringify(line)}\n`);
    process.stderr.write(`result appended to ${path.relative(process.cwd(), RESULTS_FILE)}\n`);
  } catch (e) {
    process.stderr.write(`could not append to ${RESULTS_FILE}: ${e instanceof Error ? e.message : String(e)}\n`);
  }
}
