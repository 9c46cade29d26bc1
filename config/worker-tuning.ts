import type { WorkerOptions } from '@temporalio/worker';

/**
 * The worker's tuning defaults, kept in config/ beside the variables that override them (env.ts).
 *
 * The options every Worker of a `hosted-agents worker` process runs with — and the baseline worker
 * of the turns benchmark (bench/bare/worker.ts), so that the engine it measures is configured like
 * ours. Where we keep a Temporal 1.24 default it is said here, so that a change is deliberate.
 *
 * Kept at Temporal's defaults (bench/README.md, "Worker memory"):
 * - `reuseV8Context` (true): all workflows of a Worker share one V8 context in one thread; without
 *   it each cached workflow has a context of its own, several times the memory and CPU per task.
 * - `maxConcurrentWorkflowTaskExecutions` (40), `maxConcurrentActivityTaskExecutions` (100),
 *   `maxConcurrentLocalActivityExecutions` (100): slots, not memory held in advance; a turn's
 *   activity spends its time waiting on the model, so 100 in flight per process is what lets one
 *   worker carry a few hundred turns/s of streaming. Lowering them saves no memory.
 */
export interface WorkerTuning {
  /** Workflows each Worker keeps in its sticky cache (`WORKER_MAX_CACHED_WORKFLOWS`). */
  maxCachedWorkflows: number;
}

export const DEFAULT_WORKER_TUNING: WorkerTuning = {
  // Temporal's default is derived from the heap limit — 2310 per Worker on a 4 GB heap, ~10 on a
  // small one — so it changes with the machine and with `--max-old-space-size`. A fixed number is
  // predictable: it covers the turns a worker runs at once (tens; a few hundred when turns wait
  // on slow models), and it bounds what long-waiting workflows (a domain's renewal, a
  // test deployment's expiry) hold. A workflow evicted from the cache is replayed from its
  // history on its next task: CPU, not a failure.
  maxCachedWorkflows: 1000,
};

/**
 * How often a turn's text is written (and each write announced to every stream of the turn): at
 * most every 50 ms, 20 updates a second; the first text after a pause goes at once. Shorter
 * intervals multiply a turn's writes and stream reads for no difference a reader sees.
 */
export const TEXT_FLUSH_MS = 50;

/**
 * The most text (characters) one model step holds unwritten while PostgreSQL is away
 * (`MODEL_STEP_DB_OUTAGE_MS`): 2^20, a few MiB of heap at most per step, more than any answer
 * streams in a minute. Past it the step stops its model call and is retried, as a failed write did before.
 */
export const OUTAGE_TEXT_BUFFER_CHARS = 2 ** 20;

export function workerOptions(tuning: WorkerTuning) {
  return {
    // A workflow's next task goes first to the sticky queue of the worker that ran it last. When
    // that worker was killed, the task waits there this long before any worker may take it:
    // Temporal's 10 s default would be most of a turn's recovery after a SIGKILL.
    stickyQueueScheduleToStartTimeout: '2 seconds',
    maxCachedWorkflows: tuning.maxCachedWorkflows,
  } satisfies Partial<WorkerOptions>;
}
