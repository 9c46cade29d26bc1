/**
 * What one `data.run` program may use (docs/tools.md: data.run). One place, so the docs and the
 * tests quote the same numbers.
 */
export const sandboxLimits = {
  /** QuickJS heap: past it the program stops with `out of memory`. */
  memoryBytes: 32 * 1024 * 1024,
  /** QuickJS stack: deep recursion stops with `stack overflow` long before the host's. */
  stackBytes: 256 * 1024,
  /** Interpreter time: the program is interrupted after it. */
  cpuMs: 2_000,
  /** Wall time of the whole run, thread start included: past it the thread is terminated. */
  wallMs: 5_000,
  /** The thread's own V8 heap (its QuickJS heap lives in wasm memory inside it). */
  threadHeapMb: 64,
  /** `inputs`: at most this many files, this many bytes in all. */
  inputFiles: 10,
  inputBytes: 5 * 1024 * 1024,
  /** `writeFile`: at most this many files a run, each at most this many bytes. */
  outputFiles: 10,
  outputFileBytes: 1024 * 1024,
  /** What `print` and the result may add up to, in characters (the rest is cut). */
  outputChars: 16_000,
  /** The program's source. */
  codeChars: 20_000,
} as const;
