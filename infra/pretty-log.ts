/**
 * pino's JSON lines rewritten for a person: `12:04:05 WARN  message  key=value …`, an error's stack
 * indented below. pino-pretty would do it too, but costs a dependency for a dozen lines.
 */

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's own fields: shown in the line's head or not at all. */
const HEAD = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'err']);

interface ErrorRecord {
  message?: string;
  stack?: string;
}

const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 8);
const shown = (v: unknown) => (typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v));

/** One JSON log line as a readable line (or a few, for an error's stack). */
export function prettyLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return `${json}\n`; // not ours: pass it through
  }
  const level = LEVELS[Number(record.level)] ?? String(record.level);
  const fields = Object.entries(record)
    .filter(([k]) => !HEAD.has(k))
    .map(([k, v]) => `${k}=${shown(v)}`);
  const err = record.err as ErrorRecord | undefined;
  const head = [clock(Number(record.time)), level.padEnd(5), String(record.msg ?? ''), err?.message ? `— ${err.message}` : '', ...fields]
    .filter((part) => part !== '')
    .join(' ');
  // A stack is for the error and fatal lines a person must act on; a warning's message says enough.
  const stack = err?.stack && Number(record.level) >= 50 ? `\n${err.stack.replace(/^/gm, '    ')}` : '';
  return `${head}${stack}\n`;
}

/** A pino destination writing pretty lines to `out`. */
export function prettyLines(out: { write(text: string): unknown }): { write(line: string): void } {
  return { write: (line) => void out.write(prettyLine(line.trimEnd())) };
}
