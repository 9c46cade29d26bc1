import { parentPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModule, type QuickJSContext, type QuickJSHandle, shouldInterruptAfterDeadline } from 'quickjs-emscripten';
import { sandboxLimits } from './limits';
import type { ProgramReply, ProgramRequest } from './protocol';

/**
 * The sandbox thread: runs one `data.run` program in QuickJS (WebAssembly) and posts its reply.
 * The program sees no Node, no network, no clock beyond `Date`, no modules: only the globals made
 * here — `inputs` (the input paths), `readFile(path)` (an input's text), `writeFile(path, text)`
 * (kept, then written by the host), `print(...)` (also `console.log`), `parseCSV`, `toCSV`, `Papa`.
 * QuickJS bounds its heap, its stack and its interpreter time; the host bounds the thread's wall time.
 */

/** The program's helpers, evaluated after papaparse and before the program. */
const HELPERS = `
globalThis.console = { log: print, info: print, warn: print, error: print };
globalThis.parseCSV = (text, options) => Papa.parse(text, Object.assign({ header: true, dynamicTyping: true, skipEmptyLines: true }, options)).data;
globalThis.toCSV = (rows, options) => Papa.unparse(rows, options);
`;

function text(ctx: QuickJSContext, h: QuickJSHandle): string {
  const v: unknown = ctx.dump(h);
  return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
}

async function run(req: ProgramRequest): Promise<ProgramReply> {
  const quickjs = await newQuickJSWASMModule();
  const ctx = quickjs.newContext();
  const { runtime } = ctx;
  runtime.setMemoryLimit(sandboxLimits.memoryBytes);
  runtime.setMaxStackSize(sandboxLimits.stackBytes);
  let printed = '';
  const writes: Record<string, string> = {};
  const define = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined) => {
    const handle = ctx.newFunction(name, fn);
    ctx.setProp(ctx.global, name, handle);
    handle.dispose();
  };
  define('print', (...args) => {
    if (printed.length <= sandboxLimits.outputChars) printed += `${args.map((a) => text(ctx, a)).join(' ')}\n`;
    return undefined;
  });
  define('readFile', (pathHandle) => {
    const path = pathHandle ? ctx.getString(pathHandle) : '';
    const content = Object.hasOwn(req.files, path) ? req.files[path] : undefined;
    if (content === undefined) throw new Error(`${JSON.stringify(path)} is not an input: list it in the call's inputs (loaded: ${Object.keys(req.files).join(', ') || 'none'})`);
    return ctx.newString(content);
  });
  define('writeFile', (pathHandle, contentHandle) => {
    const path = pathHandle ? ctx.getString(pathHandle) : '';
    const content = contentHandle ? text(ctx, contentHandle) : '';
    if (!Object.hasOwn(writes, path) && Object.keys(writes).length >= sandboxLimits.outputFiles) throw new Error(`at most ${sandboxLimits.outputFiles} files a run`);
    if (Buffer.byteLength(content) > sandboxLimits.outputFileBytes) throw new Error(`a written file is at most ${sandboxLimits.outputFileBytes} bytes`);
    writes[path] = content;
    return undefined;
  });
  const inputs = ctx.newArray();
  Object.keys(req.files).forEach((p, i) => {
    const s = ctx.newString(p);
    ctx.setProp(inputs, i, s);
    s.dispose();
  });
  ctx.setProp(ctx.global, 'inputs', inputs);
  inputs.dispose();

  try {
    for (const [source, name] of [[req.prelude, 'papaparse.js'], [HELPERS, 'helpers.js']] as const) {
      const loaded = ctx.evalCode(source, name);
      if (loaded.error) throw new Error(`the sandbox could not start: ${text(ctx, loaded.error)}`);
      loaded.value.dispose();
    }
    // The interpreter's clock starts with the program, not with the library.
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + sandboxLimits.cpuMs));
    const result = ctx.evalCode(`(() => { const r = (function () { "use strict";\n${req.code}\n})(); return r === undefined ? undefined : JSON.stringify(r); })()`, 'program.js');
    if (result.error) {
      const e = ctx.dump(result.error) as { name?: string; message?: string } | string;
      result.error.dispose();
      const message = typeof e === 'object' && e !== null ? `${e.name ?? 'Error'}: ${e.message ?? ''}` : String(e);
      const why = message === 'InternalError: interrupted' ? `the program ran longer than ${sandboxLimits.cpuMs} ms and was interrupted` : message;
      return { ok: false, printed, error: why };
    }
    const value: unknown = ctx.dump(result.value);
    result.value.dispose();
    return { ok: true, printed, result: typeof value === 'string' ? value : undefined, writes };
  } finally {
    ctx.dispose();
  }
}

run(workerData as ProgramRequest).then(
  (reply) => parentPort!.postMessage(reply),
  (err: unknown) => parentPort!.postMessage({ ok: false, printed: '', error: err instanceof Error ? err.message : String(err) } satisfies ProgramReply),
);
