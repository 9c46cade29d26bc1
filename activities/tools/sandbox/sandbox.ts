import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sandboxLimits } from './limits';
import type { ProgramReply, ProgramRequest } from './protocol';

/** papaparse's browser build, evaluated inside the sandbox for `parseCSV`/`toCSV`: read once. */
let prelude: string | undefined;
const papaparse = () => (prelude ??= readFileSync(require.resolve('papaparse/papaparse.min.js'), 'utf8'));

/**
 * The thread's source: its file beside this one, `.js` in build/; under tsx (tests, `npm start`
 * from the sources) the `.ts` file through tsx's require, which a thread does not inherit.
 */
const threadFile = path.join(__dirname, `thread${path.extname(__filename)}`);
const threadSource =
  path.extname(__filename) === '.ts'
    ? `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).require(${JSON.stringify(threadFile)}, ${JSON.stringify(__filename)});`
    : `require(${JSON.stringify(threadFile)});`;

/**
 * Runs a `data.run` program in a thread of its own (activities/tools/sandbox/thread.ts) and
 * answers its reply. The thread, not this one, spends the program's time and memory, so a
 * program that loops or allocates without end cannot stall the worker's other calls; past
 * `wallMs`, or when `signal` aborts, the thread is terminated.
 */
export function runProgram(input: { code: string; files: Record<string, string> }, signal?: AbortSignal): Promise<ProgramReply> {
  const request: ProgramRequest = { ...input, prelude: papaparse() };
  return new Promise((resolve) => {
    const worker = new Worker(threadSource, {
      eval: true,
      workerData: request,
      resourceLimits: { maxOldGenerationSizeMb: sandboxLimits.threadHeapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (reply: ProgramReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(reply);
    };
    const timer = setTimeout(() => settle({ ok: false, printed: '', error: `the program ran longer than ${sandboxLimits.wallMs} ms and was stopped` }), sandboxLimits.wallMs);
    const onAbort = () => settle({ ok: false, printed: '', error: 'the call was cancelled' });
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: ProgramReply) => settle(reply));
    worker.once('error', (err) => settle({ ok: false, printed: '', error: `the sandbox stopped: ${err.message}` }));
    worker.once('exit', (code) => settle({ ok: false, printed: '', error: `the sandbox stopped (exit ${code})` }));
  });
}
