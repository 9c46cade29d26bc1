/** Percentiles and small summaries of latency samples (milliseconds). */

/** Nearest-rank percentile (p in 0–100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarise(samples: readonly number[]): Summary {
  const n = samples.length;
  return {
    n,
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
    max: n === 0 ? Number.NaN : Math.max(...samples),
    mean: n === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / n,
  };
}

/** `12.3` style: one decimal, or `n/a`. */
export function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(1) : 'n/a';
}

export function formatSummary(s: Summary): string {
  return `n=${s.n} p50=${ms(s.p50)} p90=${ms(s.p90)} p99=${ms(s.p99)} max=${ms(s.max)} mean=${ms(s.mean)} ms`;
}
