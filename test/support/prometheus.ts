/** One sample of a Prometheus text exposition: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text format's samples (comments and blank lines skipped); enough for assertions. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
