import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_EXTRACTION_LIMITS, type Extraction, type ExtractionLimits } from './extract';
import type { ExtractionRequest } from './extract-child';

/**
 * Where a tenant's document is parsed: a child process of its own (extract-child.ts), never the
 * worker's process, which runs every other workspace's turns. A 1 MB file can inflate to
 * gigabytes or spin a parser for minutes; in the child that costs the child. What bounds it
 * (docs/knowledge.md, "Limits"):
 *
 * - `heapMb` 256: V8's heap limit in the child (`--max-old-space-size`); past it the child dies of
 *   "heap out of memory" and the file fails with that reason.
 * - `rssMb` 512: the child's whole resident memory (heap, buffers, inflated streams, which V8's
 *   heap limit does not see), read from /proc every 100 ms; past it the child is killed. Linux
 *   only: elsewhere the heap limit alone holds.
 * - `graceMs` 5 000: past the extraction's own time limit (`timeMs`, which the child keeps itself,
 *   answering with the pages it read) plus this, the child is killed — synchronous work that
 *   never yields cannot keep its own clock.
 * - `concurrent` 2: children alive at once in one process; more requests wait for a free one.
 *   With the worker's own memory, the service's bound is that plus 2 × 512 MB.
 *
 * One child a file: a warm pool would save its start (~0.1 s, bench/README.md: bench:extract),
 * but a child that read a hostile file would then read the next tenant's.
 */
export const extractionSandbox = { heapMb: 256, rssMb: 512, graceMs: 5_000, concurrent: 2, pollMs: 100 } as const;

/** The child's source: its file beside this one, `.js` in build/, `.ts` through tsx from the sources. */
const childFile = path.join(__dirname, `extract-child${path.extname(__filename)}`);
const childExecArgv = path.extname(__filename) === '.ts' ? ['--require', require.resolve('tsx/cjs')] : [];

/** Same answer as `extractText`, computed in a sandboxed child. An abort kills the child and rejects with the signal's reason. */
export async function extractInSandbox(
  file: { path: string; mimeType: string; content: Uint8Array },
  limits?: Partial<ExtractionLimits>,
  signal?: AbortSignal,
): Promise<Extraction> {
  signal?.throwIfAborted();
  const request: ExtractionRequest = { file, limits: { ...DEFAULT_EXTRACTION_LIMITS, ...limits } };
  const release = await slots.take(signal);
  try {
    return await runChild(request, signal);
  } finally {
    release();
  }
}

function runChild(request: ExtractionRequest, signal: AbortSignal | undefined): Promise<Extraction> {
  const { heapMb, rssMb, graceMs, pollMs } = extractionSandbox;
  return new Promise((resolve, reject) => {
    const child = fork(childFile, [], {
      execArgv: [...childExecArgv, `--max-old-space-size=${heapMb}`, '--max-semi-space-size=16'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // Nothing of the worker's environment (keys, database URL) is in reach of a parser bug.
      env: {},
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-4096)));
    let killedFor: string | undefined;
    const kill = (reason: string) => {
      killedFor ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(`reading it took longer than ${(request.limits.timeMs + graceMs) / 1000} s and was stopped`), request.limits.timeMs + graceMs);
    const watch = setInterval(() => {
      void residentBytes(child.pid).then((rss) => {
        if (rss !== undefined && rss > rssMb * MB) kill(`reading it needed more than ${rssMb} MB of memory, the extraction sandbox's limit`);
      });
    }, pollMs);
    const onAbort = () => kill('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    let reply: Extraction | undefined;
    child.once('message', (m: Extraction) => (reply = m));
    child.once('error', (err) => kill(`the extraction sandbox could not start (${err.message})`));
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(signal.reason);
      if (reply) return resolve(reply);
      resolve({ ok: false, reason: deathReason(killedFor, stderr, code, sig) });
    });
    child.send(request, (err) => {
      if (err) kill(`the extraction sandbox could not be given the file (${err.message})`);
    });
  });
}

const MB = 1024 * 1024;

/** One sentence for the person who put the file: which limit the child passed. */
function deathReason(killedFor: string | undefined, stderr: string, code: number | null, sig: NodeJS.Signals | null): string {
  if (killedFor) return killedFor;
  if (/heap out of memory|Reached heap limit|allocation failed/i.test(stderr)) {
    return `reading it needed more than ${extractionSandbox.heapMb} MB of memory, the extraction sandbox's limit`;
  }
  return `the extraction sandbox stopped while reading it (${sig ?? `exit ${code}`})`;
}

/** The process's resident memory from /proc (Linux); undefined where there is none or it is gone. */
async function residentBytes(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const statm = await readFile(`/proc/${pid}/statm`, 'utf8');
    const pages = Number(statm.split(' ')[1]);
    return Number.isFinite(pages) ? pages * PAGE_BYTES : undefined;
  } catch {
    return undefined;
  }
}

/** Linux's page size on every platform we run on (x86-64, arm64 with 4 KB pages). */
const PAGE_BYTES = 4096;

/**
 * At most `concurrent` children at once in this process: the memory bound of the service is
 * counted in children, so a burst of files queues here instead of multiplying it. A process-wide
 * limit by nature — the memory it protects is the process's and its children's.
 */
const slots = (() => {
  let free: number = extractionSandbox.concurrent;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return {
    take(signal?: AbortSignal): Promise<() => void> {
      if (free > 0) {
        free--;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve, reject) => {
        const grant = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(once(release));
        };
        const onAbort = () => {
          const i = waiting.indexOf(grant);
          if (i !== -1) waiting.splice(i, 1);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(grant);
      });
    },
  };
})();

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
