import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { segment } from './paths.js';
import { sleep } from './sleep.js';
import type { EvalRun, EvalRunComparison, EvalRunListItem } from './types/eval.js';

/** How often `wait` asks for the run. */
const POLL_MS = 1000;

/**
 * The eval runs of one agent (`agent.evalRuns`): started by `agent.evals.run`, or by
 * `deployToProd`'s gate (`purpose` says which). A run id is `evr_…`.
 */
export class AgentEvalRuns {
  readonly #http: HttpClient;
  readonly #agentId: string;

  /** @internal Built by `AgentHandle.evalRuns`; not part of the public API. */
  constructor(http: HttpClient, agentId: string) {
    this.#http = http;
    this.#agentId = agentId;
  }

  #url(runId?: string): string {
    const base = `/v1/agents/${segment(this.#agentId, 'agent id')}/eval-runs`;
    return runId === undefined ? base : `${base}/${segment(runId, 'eval run id')}`;
  }

  /** The run with each case's result and evidence; 404 `eval_run_not_found`. */
  async get(runId: string, options: CallOptions = {}): Promise<EvalRun> {
    return this.#http.request<EvalRun>('GET', this.#url(runId), { signal: options.signal, expect: 'object' });
  }

  /** The agent's runs, newest first (the latest 50), without per-case evidence. */
  async list(options: CallOptions = {}): Promise<EvalRunListItem[]> {
    return this.#http.request<EvalRunListItem[]>('GET', this.#url(), { signal: options.signal, expect: 'list' });
  }

  /**
   * Cancels the run: its turns in flight end (each paying what it used), then it ends
   * `cancelled`. Resolves to the run as it stands (still `running` until its turns have ended).
   */
  async cancel(runId: string, options: CallOptions = {}): Promise<EvalRun> {
    return this.#http.request<EvalRun>('POST', `${this.#url(runId)}/cancel`, { signal: options.signal, expect: 'object' });
  }

  /** Which cases changed from run `before` to run `after`: `fixed`, `broke`, `same`, `added`, `removed`. */
  async compare(before: string, after: string, options: CallOptions = {}): Promise<EvalRunComparison> {
    const query = `?before=${encodeURIComponent(before)}`;
    return this.#http.request<EvalRunComparison>('GET', `${this.#url(after)}/compare${query}`, { signal: options.signal, expect: 'object' });
  }

  /**
   * Polls the run (once a second) until it is no longer `running`, and resolves to it. Abort
   * with `signal` (e.g. `AbortSignal.timeout(600_000)`): it rejects with code `aborted`, and the
   * run goes on.
   */
  async wait(runId: string, options: CallOptions = {}): Promise<EvalRun> {
    // An abort ends the pause at once; the next `get` then rejects with code `aborted`.
    const signal = options.signal ?? new AbortController().signal;
    for (;;) {
      const run = await this.get(runId, options);
      if (run.status !== 'running') return run;
      await sleep(POLL_MS, signal);
    }
  }
}
