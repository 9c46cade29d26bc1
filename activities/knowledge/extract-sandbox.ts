import { type ChildProcess, fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_EXTRACTION_LIMITS, type Extraction } from './extract';
import type { ExtractionLimits } from './extract-support';
import type { ExtractionRequest } from './extract-child';

/**
 * Where a tenant's document is parsed: a child process of its own (extract-child.ts), never the
 * worker's process, which runs every other workspace's turns. A 1 MB file can inflate to
 * gigabytes or spin a parser for minutes; in the child that costs the child. What bounds it
 * (docs/knowledge.md, "Limits"):
 *
 * - `heapMb` 512: V8's heap limit in the child (`--max-old-space-size`); past it the child dies of
 *   "heap out of memory" and the file fails with that reason. A DOCX at its unzipped bound (32 MiB
 *   of XML) needs about 460 MB.
 * - `rssMb` 1024: the child's whole resident memory (heap, buffers, inflated streams, which V8's
 *   heap limit does not see), read from /proc every 100 ms; past it the child is killed. Linux
 *   only: elsewhere the heap limit alone holds.
 * - `graceMs` 5 000: past the extraction's own time limit (`timeMs`, which the child keeps itself,
 *   answering with the pages it read) plus this, the child is killed — synchronous work that
 *   never yields cannot keep its own clock.
 * - `concurrent` 2: children alive at once in one process; more requests wait for a free one.
 *   With the worker's own memory, the service's bound is that plus 2 × 1 GB.
 *
 * - `spareIdleMs` 60 000: one child is kept forked and loaded ahead of the next file (below), and
 *   exits after a minute unused: a burst of files, or a turn reading a PDF, does not wait for Node
 *   and the parsers to start. It is the only idle cost (about 100 MB while it waits).
 *
 * One child a file, never reused: a child that read a hostile file would otherwise read the next
 * tenant's.
 */
export const extractionSandbox = { heapMb: 512, rssMb: 1024, graceMs: 5_000, concurrent: 2, pollMs: 100, spareIdleMs: 60_000 } as const;

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

/** A sandbox child, forked with its limits; it loads the extractors at once, before it is given a file. */
function forkChild(): ChildProcess {
  const child = fork(childFile, [], {
    execArgv: [...childExecArgv, `--max-old-space-size=${extractionSandbox.heapMb}`, '--max-semi-space-size=16'],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // Nothing of the worker's environment (keys, database URL) is in reach of a parser bug.
    env: {},
  });
  // A child that fails to start is noticed when it is used (its exit); unheard, an error would throw.
  child.on('error', () => undefined);
  return child;
}

/**
 * One child kept forked and loaded ahead of the next file, so a file does not wait for Node and
 * the parsers to start (~0.5 s). It is used once, like any child — never a child that has read a
 * file — and exits after `spareIdleMs` unused. It never keeps the process alive.
 */
let spare: { child: ChildProcess; idle: NodeJS.Timeout } | undefined;

function takeChild(): ChildProcess {
  const ready = spare;
  spare = undefined;
  if (ready) clearTimeout(ready.idle);
  const child = ready && ready.child.exitCode === null && ready.child.signalCode === null && ready.child.connected ? ready.child : forkChild();
  if (ready && child !== ready.child) ready.child.kill('SIGKILL');
  child.ref();
  child.channel?.ref();
  keepSpare();
  return child;
}

function keepSpare(): void {
  if (spare) return;
  const child = forkChild();
  child.unref();
  child.channel?.unref();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  const idle = setTimeout(() => {
    if (spare?.child === child) spare = undefined;
    child.kill('SIGKILL');
  }, extractionSandbox.spareIdleMs);
  idle.unref();
  spare = { child, idle };
}

function runChild(request: ExtractionRequest, signal: AbortSignal | undefined): Promise<Extraction> {
  const { rssMb, graceMs, pollMs } = extractionSandbox;
  return new Promise((resolve, reject) => {
    const child = takeChild();
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
    const ended = (code: number | null, sig: NodeJS.Signals | null) => {
      clearTimeout(timer);
      clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(signal.reason);
      if (reply) return resolve(reply);
      resolve({ ok: false, reason: deathReason(killedFor, stderr, code, sig) });
    };
    // A spare that died while it waited is caught here too: it has exited, and says so at once.
    if (child.exitCode !== null || child.signalCode !== null) return ended(child.exitCode, child.signalCode);
    child.once('exit', ended);
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
