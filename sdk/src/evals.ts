import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { segment } from './paths.js';
import type { EvalCase, EvalCaseDefinition, EvalGate, EvalRun } from './types/eval.js';

/**
 * The evaluation cases of one agent (`agent.evals`): conversations to replay and checks on their
 * result. Cases are stored beside the agent's versions: changing one publishes no version.
 * A case id is 1 to 64 of `a-z`, `0-9`, `_`, `-`, starting with a letter or digit, and a name:
 * not only digits, not `null`, `undefined`, `true` or `false`; `put` with another is refused with
 * 400 `invalid_request` naming `path.caseId`.
 */
export class AgentEvals {
  readonly #http: HttpClient;
  readonly #agentId: string;

  /** @internal Built by `AgentHandle.evals`; not part of the public API. */
  constructor(http: HttpClient, agentId: string) {
    this.#http = http;
    this.#agentId = agentId;
  }

  #url(caseId?: string): string {
    const base = `/v1/agents/${segment(this.#agentId, 'agent id')}/evals`;
    return caseId === undefined ? base : `${base}/${segment(caseId, 'case id')}`;
  }

  /** Every case of the agent, ordered by id (`GET /v1/agents/:agentId/evals`). */
  async list(options: CallOptions = {}): Promise<EvalCase[]> {
    return this.#http.request<EvalCase[]>('GET', this.#url(), { signal: options.signal, expect: 'list' });
  }

  /**
   * Creates the case `caseId` or replaces it whole (`PUT /v1/agents/:agentId/evals/:caseId`).
   * Resolves to the case as stored, defaults filled in; a replace keeps `createdAt`. A bad
   * definition rejects with 400 `invalid_request` naming the field (`body.checks[0].pattern`), a
   * 201st case with 409 `eval_case_limit`; nothing is written either way.
   */
  async put(caseId: string, definition: EvalCaseDefinition, options: CallOptions = {}): Promise<EvalCase> {
    return this.#http.request<EvalCase>('PUT', this.#url(caseId), { body: definition, signal: options.signal, expect: 'object' });
  }

  /** Deletes the case (`DELETE /v1/agents/:agentId/evals/:caseId`); 404 `eval_case_not_found` when there is none. */
  async remove(caseId: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', this.#url(caseId), { signal: options.signal });
  }

  /**
   * Starts a run of the cases (all, or the ids in `cases`) against `versionId`, any version of
   * the agent (`POST /v1/agents/:agentId/eval-runs`). Resolves at once to the run, `running` with
   * every case `pending`; `agent.evalRuns.wait(run.id)` waits for its end. Each case is a new
   * conversation whose turns are billed like any turn. Failures: 404 `version_not_found`,
   * 404 `eval_case_not_found` (an id in `cases`), 409 `no_eval_cases`.
   */
  async run(input: { versionId: string; cases?: string[] }, options: CallOptions = {}): Promise<EvalRun> {
    const path = `/v1/agents/${segment(this.#agentId, 'agent id')}/eval-runs`;
    return this.#http.request<EvalRun>('POST', path, { body: input, signal: options.signal, expect: 'object' });
  }

  /** What `deployToProd` requires of the eval runs (`GET /v1/agents/:agentId/eval-gate`). */
  async gate(options: CallOptions = {}): Promise<EvalGate> {
    return this.#http.request<EvalGate>('GET', this.#gateURL(), { signal: options.signal, expect: 'object' });
  }

  /**
   * Sets the pass rate `deployToProd` requires: a share of cases from 0 to 1, or null for the
   * default rule (no case that passes on production may fail). Publishes no version.
   */
  async setGate(gate: EvalGate, options: CallOptions = {}): Promise<EvalGate> {
    return this.#http.request<EvalGate>('PUT', this.#gateURL(), { body: gate, signal: options.signal, expect: 'object' });
  }

  #gateURL(): string {
    return `/v1/agents/${segment(this.#agentId, 'agent id')}/eval-gate`;
  }
}
