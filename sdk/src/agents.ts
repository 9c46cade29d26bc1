import { type Agent, toAgent } from './agent.js';
import type { HttpClient } from './http.js';
import { ServiceError } from './errors.js';
import type { CallOptions } from './options.js';
import { bodyId, segment } from './paths.js';
import type { AgentRecord, CreateAgentFields } from './types/agent.js';
import type { ProdDeployment, TestDeployment, VersionItem } from './types/deployment.js';

/** Where a version id comes from, said when one is missing. */
const VERSION_ID_HINT = "a version id (ver_…) is agent.versionId, or an item's id from ws.agents.versions(agentId)";

/**
 * The workspace's agents (`ws.agents`): creating and listing them, and publishing them
 * (`deployToTest`, `deployToProd`, `versions`, `rollback`, public tokens). For one agent, use
 * `ws.agent(agentId)`.
 *
 * Only `freelancer` agents are published: the deploy calls reject a teammate's version with 409
 * `agent_not_publishable` (make it one with `agent.update({ role: 'freelancer' })`). Deploys take
 * a version id (`ver_…`): `agent.versionId` of the Agent a create or update resolved to, or an
 * item's `id` from `versions(agentId)`. An id that is empty (or, in a path, `.` or `..`) makes
 * the call reject with code `invalid_request`, without a request.
 */
export class AgentsResource {
  readonly #http: HttpClient;

  /** @internal Built by `WorkspaceClient`; not part of the public API. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** Creates an agent at version 1 (`POST /v1/agents`); only `name` is required. */
  async create(fields: CreateAgentFields, options: CallOptions = {}): Promise<Agent> {
    const record = await this.#http.request<AgentRecord>('POST', '/v1/agents', { body: fields, signal: options.signal, expect: 'object' });
    return toAgent(this.#http, record);
  }

  /** Every agent of the workspace at its latest version, newest agent first (`GET /v1/agents`). */
  async list(options: CallOptions = {}): Promise<Agent[]> {
    const records = await this.#http.request<AgentRecord[]>('GET', '/v1/agents', { signal: options.signal, expect: 'list' });
    return records.map((record) => toAgent(this.#http, record));
  }

  /**
   * The deployment list of an agent, newest first (`GET /v1/agents/:agentId/deployments`):
   * `VersionItem`s `{ id: 'ver_…', number, deployedAt, isProd }`, one per version, at most one
   * `isProd`. An item's `id` is what the deploy calls and `rollback` take.
   *
   * Not to be confused with `agent.versions()`, which resolves to the full snapshots (`Agent`s,
   * whose `id` is the agent's `agt_…` and whose `versionId` is the item's `id`).
   */
  async versions(agentId: string, options: CallOptions = {}): Promise<VersionItem[]> {
    const path = `/v1/agents/${segment(agentId, 'agent id')}/deployments`;
    return this.#http.request<VersionItem[]>('GET', path, { signal: options.signal, expect: 'list' });
  }

  /**
   * Serves the version at a new ephemeral test URL (`POST /v1/deployments/test`, body
   * `{ versionId }`) and resolves to `{ url, expiresAt }`. The URL is for trying the agent out,
   * not for end users; it stops working at `expiresAt`. Calling again for the same version while
   * its test URL is live resolves to the same URL and expiry.
   *
   * Rejects with 404 `version_not_found` for an unknown version id, 400 `invalid_request` for
   * something that is no `ver_…` id (a version number, an agent id), and 409
   * `agent_not_publishable` for a version of a teammate agent.
   */
  async deployToTest(versionId: string, options: CallOptions = {}): Promise<TestDeployment> {
    const body = { versionId: bodyId(versionId, 'version id', VERSION_ID_HINT) };
    return this.#http.request<TestDeployment>('POST', '/v1/deployments/test', { body, signal: options.signal, expect: 'object' });
  }

  /**
   * Makes the version the agent's production version (`POST /v1/deployments/prod`, body
   * `{ versionId }`) and resolves to `{ url, versionNumber }`: the agent's production URL and the
   * number of the version it now serves. The first production deploy of an agent also mints its
   * public token (see `publicToken`). Deploying the version already in production resolves at
   * once to the same answer.
   *
   * The service first health-checks the version (fixed-scope secrets and connections supplied,
   * the model answers, each MCP server lists its tools) while the current production version
   * keeps serving; only a healthy version is promoted. Failures: 404 `version_not_found`, 409
   * `agent_not_publishable` (a teammate agent), 409 `deploy_check_failed` (production is
   * unchanged; the message names each failed check).
   *
   * The eval gate: when the agent has evaluation cases, they run against the candidate (and,
   * under the default rule, against production) and the promotion is refused with
   * `deploy_check_failed` naming the failing cases unless the gate's rule holds
   * (`agent.evals.gate()`). `{ skipEvals: true }` promotes without them; the version records it.
   * Evals take as long as their turns: past 55 s the call answers 504 `worker_timeout` and the
   * promotion goes on (call again to wait for it).
   *
   * Timing: the check usually takes a few seconds; its parts run in parallel, the model within
   * 20 s and each MCP server within its `timeoutMs` (default 30 s), so it stays within the
   * default per-request `timeout` of 60 s unless a server sets a longer `timeoutMs`. If the call
   * rejects with code `timeout`, or the service answers 504 `worker_timeout` (it waits 55 s), the
   * promotion goes on server-side; calling `deployToProd` again with the same version id waits for
   * that same promotion instead of starting another.
   */
  async deployToProd(versionId: string, options: CallOptions & { skipEvals?: boolean } = {}): Promise<ProdDeployment> {
    const body = { versionId: bodyId(versionId, 'version id', VERSION_ID_HINT), ...(options.skipEvals ? { skipEvals: true } : {}) };
    return this.#http.request<ProdDeployment>('POST', '/v1/deployments/prod', { body, signal: options.signal, expect: 'object' });
  }

  /**
   * Makes `versionId`, a version of the agent `agentId`, its production version again
   * (`POST /v1/agents/:agentId/rollback`, body `{ versionId }`; 204). Instant: no health check,
   * and the public token and production URL do not change. Rolling back to the version already
   * in production changes nothing. Any version of the agent can be the target, older or newer.
   *
   * Rejects with 404 `agent_not_found`, 404 `version_not_found` (no such version of this agent),
   * and 409 `agent_not_deployed` when the agent has never been deployed to production.
   */
  async rollback(agentId: string, versionId: string, options: CallOptions = {}): Promise<void> {
    const path = `/v1/agents/${segment(agentId, 'agent id')}/rollback`;
    const body = { versionId: bodyId(versionId, 'version id', VERSION_ID_HINT) };
    await this.#http.request<void>('POST', path, { body, signal: options.signal });
  }

  /**
   * The agent's public (publishable) token, `agt_pk_…` (`GET /v1/agents/:agentId/public-token`).
   * Minted on the agent's first production deploy and kept across re-deploys and rollbacks; it
   * authorises public chat with that agent only (`Authorization: Bearer agt_pk_…` on
   * `POST /v1/public/chat`), so it may appear in a web page's source.
   *
   * Rejects with 404 `agent_not_found`, and 409 `agent_not_deployed` before the first
   * production deploy.
   */
  async publicToken(agentId: string, options: CallOptions = {}): Promise<string> {
    return this.#token('GET', `/v1/agents/${segment(agentId, 'agent id')}/public-token`, options);
  }

  /**
   * Replaces the agent's public token and resolves to the new one
   * (`POST /v1/agents/:agentId/public-token/rotate`). The previous token is refused from then on
   * (401 `invalid_public_token`); other agents' tokens are not affected. Embeds using
   * `data-agent-id` keep working: the service resolves the token for them.
   *
   * Rejects with 404 `agent_not_found`, and 409 `agent_not_deployed` before the first
   * production deploy.
   */
  async rotatePublicToken(agentId: string, options: CallOptions = {}): Promise<string> {
    return this.#token('POST', `/v1/agents/${segment(agentId, 'agent id')}/public-token/rotate`, options);
  }

  async #token(method: 'GET' | 'POST', path: string, options: CallOptions): Promise<string> {
    const answer = await this.#http.request<{ token?: unknown }>(method, path, { signal: options.signal, expect: 'object' });
    if (typeof answer.token !== 'string' || answer.token === '') {
      throw new ServiceError({ code: 'invalid_response', status: 200, retryable: false, message: 'the service answered without a token string' });
    }
    return answer.token;
  }
}
