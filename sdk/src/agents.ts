import { type Agent, toAgent } from './agent.js';
import type { HttpClient } from './http.js';
import { segment } from './paths.js';
import type { AgentRecord, CreateAgentFields, VersionItem } from './types.js';
import type { CallOptions } from './workspace.js';

/** The workspace's agents (`ws.agents`). For one agent, use `ws.agent(agentId)`. */
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
   * one item per version, exactly one of them `isProd`. For full snapshots see `agent.versions()`.
   */
  async versions(agentId: string, options: CallOptions = {}): Promise<VersionItem[]> {
    const path = `/v1/agents/${segment(agentId, 'agent id')}/deployments`;
    return this.#http.request<VersionItem[]>('GET', path, { signal: options.signal, expect: 'list' });
  }
}
