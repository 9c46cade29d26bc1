// Over 300 lines: the agent handle is one public class, every method of `ws.agent(id)` with the
// doc comment its users read in their editor; each method is a few lines over the HTTP client.
import { type AgentConversation, ConversationHandle, toConversation } from './conversation.js';
import { attachBody, authorize, bindBody, listConnections, putCredentials } from './credentials.js';
import { AgentEvalRuns } from './eval-runs.js';
import { AgentEvals } from './evals.js';
import type { HttpClient, RequestOptions } from './http.js';
import { AgentKnowledge } from './knowledge.js';
import type { CallOptions } from './options.js';
import { segment } from './paths.js';
import { withRecord } from './records.js';
import type { AgentRecord, CreditCap, UpdateAgentFields, Workflow } from './types/agent.js';
import type { AgentConversationRecord } from './types/conversation.js';
import type { AttachInput, BindInput, ConnectionStatus } from './types/credentials.js';
import type { Trigger, Webhook } from './types/trigger.js';
import type { PublicIdentityMode, VisitorIdentity, VisitorSecret } from './types/visitor-identity.js';

/** Options of `agent.get()`. */
export interface GetAgentOptions extends CallOptions {
  /** Read this version (`?version=N`) instead of the latest. */
  version?: number;
}

/** Options of `agent.start(options)`. */
export interface StartConversationOptions extends CallOptions {
  /** Run the conversation on this agent version; the latest when omitted. */
  version?: number;
  /** Values of the agent's declared `parameters`, by name. */
  parameters?: Record<string, string | number>;
  /**
   * The end user of your product this conversation is for (your own id of them). The conversation
   * is listed by `ws.endUser(id).conversations()` and sees that end user's connections and secrets.
   */
  endUser?: { id: string; name?: string; email?: string };
}

/**
 * Methods on one agent, bound to its id. `ws.agent(agentId)` builds one without any request,
 * so an id stored earlier gives back a working handle; every `Agent` the SDK returns is also
 * one. Each method is one request. Publishing methods (`update`, `setWorkflow`,
 * `removeWorkflow`, `setTriggers`) create a new version and resolve to it as a new `Agent`;
 * the object they are called on is not changed.
 *
 * An id that is empty, `.` or `..` makes every call reject with code `invalid_request`,
 * without a request.
 */
export class AgentHandle {
  /** The agent's id (prefix `agt_`). */
  readonly id: string;
  readonly #http: HttpClient;
  #knowledge: AgentKnowledge | undefined;
  #evals: AgentEvals | undefined;
  #evalRuns: AgentEvalRuns | undefined;

  /** @internal Built by `ws.agent(id)` and by the SDK's answers; not part of the public API. */
  constructor(http: HttpClient, id: string) {
    this.id = id;
    this.#http = http;
  }

  /** The agent's knowledge files: `put`, `list`, `read`, `remove`. No request until one is called. */
  get knowledge(): AgentKnowledge {
    this.#knowledge ??= new AgentKnowledge(this.#http, this.id);
    return this.#knowledge;
  }

  /**
   * The agent's evaluation cases: `list`, `put`, `remove`, `run`, `gate`, `setGate`. Stored beside its versions: changing
   * a case publishes no version. No request until one is called.
   */
  get evals(): AgentEvals {
    this.#evals ??= new AgentEvals(this.#http, this.id);
    return this.#evals;
  }

  /** The agent's eval runs: `get`, `list`, `cancel`, `compare`, `wait`. No request until one is called. */
  get evalRuns(): AgentEvalRuns {
    this.#evalRuns ??= new AgentEvalRuns(this.#http, this.id);
    return this.#evalRuns;
  }

  /**
   * Changes configuration fields, or the role, and publishes a version (`PATCH /v1/agents/:agentId`);
   * see `UpdateAgentFields`. Resolves to the agent at that version: its `versionId` is what to
   * deploy (`agent.update({ role: 'freelancer' })` makes a teammate publishable).
   */
  async update(fields: UpdateAgentFields, options: CallOptions = {}): Promise<Agent> {
    return this.#agent('PATCH', '', { body: fields, signal: options.signal });
  }

  /** Reads the latest version, or `version` (`GET /v1/agents/:agentId[?version=N]`). */
  async get(options: GetAgentOptions = {}): Promise<Agent> {
    return this.#agent('GET', '', { query: { version: options.version }, signal: options.signal });
  }

  /**
   * Every version snapshot, newest first (`GET /v1/agents/:agentId/versions`): full `Agent`s, each
   * as it was published. A snapshot's `id` is the agent's (`agt_…`); its version id (`ver_…`, what
   * deploys take) is `versionId`. Their methods act on the agent, not on the snapshot.
   *
   * Not to be confused with `ws.agents.versions(agentId)`, the deployment list: small
   * `VersionItem`s `{ id: 'ver_…', number, deployedAt, isProd }`.
   */
  async versions(options: CallOptions = {}): Promise<Agent[]> {
    const records = await this.#http.request<AgentRecord[]>('GET', `${this.#path()}/versions`, { signal: options.signal, expect: 'list' });
    return records.map((record) => toAgent(this.#http, record));
  }

  /** Deletes the agent with all its versions, knowledge and evaluation cases (`DELETE /v1/agents/:agentId`). */
  async delete(options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', this.#path(), { signal: options.signal });
  }

  /** Adds `workflow`, or replaces the one of the same name, and publishes a version (`PUT /v1/agents/:agentId/workflows`). */
  async setWorkflow(workflow: Workflow, options: CallOptions = {}): Promise<Agent> {
    return this.#agent('PUT', '/workflows', { body: workflow, signal: options.signal });
  }

  /** Removes the workflow named `name` and publishes a version (`DELETE /v1/agents/:agentId/workflows/:name`). */
  async removeWorkflow(name: string, options: CallOptions = {}): Promise<Agent> {
    return this.#agent('DELETE', `/workflows/${segment(name, 'workflow name')}`, { signal: options.signal });
  }

  /** Replaces all triggers and publishes a version (`PUT /v1/agents/:agentId/triggers`, body `{ triggers }`). */
  async setTriggers(triggers: Trigger[], options: CallOptions = {}): Promise<Agent> {
    return this.#agent('PUT', '/triggers', { body: { triggers }, signal: options.signal });
  }

  /**
   * The inbound URL of each `webhook` trigger of the latest version, by trigger index
   * (`GET /v1/agents/:agentId/webhooks`). Webhooks belong to the agent, not to a version: a
   * republished trigger keeps its URL (docs/http-api.md: Webhooks).
   */
  async webhooks(options: CallOptions = {}): Promise<Webhook[]> {
    return this.#http.request<Webhook[]>('GET', `${this.#path()}/webhooks`, { signal: options.signal, expect: 'list' });
  }

  /** The agent's credit cap and what its turns have spent or reserved (`GET /v1/agents/:agentId/credit-cap`). */
  async creditCap(options: CallOptions = {}): Promise<CreditCap> {
    return this.#http.request<CreditCap>('GET', `${this.#path()}/credit-cap`, { signal: options.signal, expect: 'object' });
  }

  /**
   * Caps the credits the agent's turns may spend in all, `null` removing the cap
   * (`PUT /v1/agents/:agentId/credit-cap`). Once a turn would take `spent` past the
   * cap, its start is refused with 409 `insufficient_credits`; raise the cap to go on.
   */
  async setCreditCap(credits: number | null, options: CallOptions = {}): Promise<CreditCap> {
    return this.#http.request<CreditCap>('PUT', `${this.#path()}/credit-cap`, { body: { credits }, signal: options.signal, expect: 'object' });
  }

  /** Who may chat with the published agent, and the identity secret's dates (`GET /v1/agents/:agentId/visitor-identity`). */
  async visitorIdentity(options: CallOptions = {}): Promise<VisitorIdentity> {
    return this.#http.request<VisitorIdentity>('GET', `${this.#path()}/visitor-identity`, { signal: options.signal, expect: 'object' });
  }

  /**
   * Sets who may chat (`PUT /v1/agents/:agentId/visitor-identity`): `anonymous`,
   * `verified` or `either`; takes effect at once, no deploy. `verified` and `either` need an
   * identity secret first (`rotateVisitorSecret`).
   */
  async setVisitorIdentity(mode: PublicIdentityMode, options: CallOptions = {}): Promise<VisitorIdentity> {
    return this.#http.request<VisitorIdentity>('PUT', `${this.#path()}/visitor-identity`, { body: { mode }, signal: options.signal, expect: 'object' });
  }

  /**
   * Creates the agent's identity secret, or replaces it (`POST /v1/agents/:agentId/visitor-identity/secret`).
   * The secret is in the answer this once. Tokens signed with the one it replaces
   * still verify for `graceSeconds` (default a day; 0 after a leak: they stop at once).
   */
  async rotateVisitorSecret(options: CallOptions & { graceSeconds?: number } = {}): Promise<VisitorSecret> {
    const body = options.graceSeconds === undefined ? {} : { graceSeconds: options.graceSeconds };
    return this.#http.request<VisitorSecret>('POST', `${this.#path()}/visitor-identity/secret`, { body, signal: options.signal, expect: 'object' });
  }

  /**
   * The origins where the agent's embed may run and whose pages may call its public chat
   * (`GET /v1/agents/:agentId/allowed-origins`); empty: any origin.
   */
  async allowedOrigins(options: CallOptions = {}): Promise<string[]> {
    const r = await this.#http.request<{ origins: string[] }>('GET', `${this.#path()}/allowed-origins`, { signal: options.signal, expect: 'object' });
    return r.origins;
  }

  /**
   * Replaces the allowed origins, e.g. `['https://shop.example.com']`, `[]` allowing any
   * (`PUT /v1/agents/:agentId/allowed-origins`). Each is `http(s)://host[:port]`
   * (no path); at most 100. Applies at once, with no deploy. Resolves to the list as stored
   * (lower case, default ports dropped, duplicates once); a bad one rejects with 400
   * `invalid_request` naming it (`body.origins[2]`) and nothing changes. Browsers on other sites
   * are refused; scripts that forge an `Origin` header are not (docs/publishing.md).
   */
  async setAllowedOrigins(origins: string[], options: CallOptions = {}): Promise<string[]> {
    const r = await this.#http.request<{ origins: string[] }>('PUT', `${this.#path()}/allowed-origins`, { body: { origins }, signal: options.signal, expect: 'object' });
    return r.origins;
  }

  /**
   * Gives the webhook `webhookId` (an id from `webhooks()`) a new inbound URL
   * (`POST /v1/agents/:agentId/webhooks/:webhookId/rotate-url`). The old URL answers 404 at once.
   */
  async rotateWebhookUrl(webhookId: string, options: CallOptions = {}): Promise<Webhook> {
    return this.#http.request<Webhook>('POST', `${this.#webhookPath(webhookId)}/rotate-url`, { signal: options.signal, expect: 'object' });
  }

  /**
   * Mints the secret outbound deliveries of the webhook `webhookId` are signed with (Standard
   * Webhooks, `whsec_…`; `POST /v1/agents/:agentId/webhooks/:webhookId/signing-secret`), replacing
   * any before it. Resolves to the secret: it is shown this once. No delivery is sent before one exists.
   */
  async mintWebhookSigningSecret(webhookId: string, options: CallOptions = {}): Promise<string> {
    const r = await this.#http.request<{ secret: string }>('POST', `${this.#webhookPath(webhookId)}/signing-secret`, { signal: options.signal, expect: 'object' });
    return r.secret;
  }

  /**
   * Starts a conversation on the agent (`POST /v1/agents/:agentId/conversations`, body
   * `{ version?, parameters?, endUser? }`). Resolves to it with its methods: `ask`, `messages`, files.
   */
  async start(options: StartConversationOptions = {}): Promise<AgentConversation> {
    const body: Omit<StartConversationOptions, 'signal'> = {};
    if (options.version !== undefined) body.version = options.version;
    if (options.parameters !== undefined) body.parameters = options.parameters;
    if (options.endUser !== undefined) body.endUser = options.endUser;
    const record = await this.#http.request<AgentConversationRecord>('POST', `${this.#path()}/conversations`, {
      body,
      signal: options.signal,
      expect: 'object',
    });
    return toConversation(this.#http, record);
  }

  /** The agent's conversations, newest first (`GET /v1/agents/:agentId/conversations`). */
  async conversations(options: CallOptions = {}): Promise<AgentConversation[]> {
    const records = await this.#http.request<AgentConversationRecord[]>('GET', `${this.#path()}/conversations`, { signal: options.signal, expect: 'list' });
    return records.map((record) => toConversation(this.#http, record));
  }

  /**
   * A handle to the conversation `conversationId` of this agent, e.g. an id stored earlier.
   * Sends no request; neither the id nor its agent is checked until a call.
   */
  conversation(conversationId: string): ConversationHandle<AgentConversationRecord> {
    return new ConversationHandle<AgentConversationRecord>(this.#http, conversationId);
  }

  /**
   * Supplies values for the agent's fixed-scope secrets and connections
   * (`PUT /v1/agents/:agentId/credentials`, body `{ secrets?, connections? }`). Each name must be declared by the agent's latest version with scope `fixed`
   * (conversation-scope values go to `conversation.bind`), else the call rejects with 400
   * `invalid_request` naming it and nothing is stored. Given names replace their stored values;
   * others stay. Values are stored encrypted and never returned by any call.
   */
  async bind(input: BindInput, options: CallOptions = {}): Promise<void> {
    await putCredentials(this.#http, this.#path(), bindBody(input), options.signal);
  }

  /**
   * The same as `bind`, taking connections as they come: `attach(connection)`, `attach([c1, c2])` or
   * `attach({ secrets })`. One request (`PUT /v1/agents/:agentId/credentials`); same rules as `bind`.
   */
  async attach(input: AttachInput, options: CallOptions = {}): Promise<void> {
    await putCredentials(this.#http, this.#path(), attachBody(input), options.signal);
  }

  /**
   * The status of every connection the latest version declares, then of every other one stored
   * on the agent (`GET /v1/agents/:agentId/connections`). Tokens are never returned.
   *
   * On an `Agent` returned with its record, `connections` is the record's list of declared
   * connections; call this through a handle: `ws.agent(agent.id).connections()`.
   */
  async connections(options: CallOptions = {}): Promise<ConnectionStatus[]> {
    return listConnections(this.#http, this.#path(), options.signal);
  }

  /**
   * Forgets the agent's value of the connection `provider`, revoking it at the provider when the
   * service has a revocation URL for it (`DELETE /v1/agents/:agentId/connections/:provider`);
   * resolves also when none was stored.
   */
  async disconnect(provider: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', `${this.#path()}/connections/${segment(provider, 'provider')}`, { signal: options.signal });
  }

  /**
   * Asks for an OAuth consent URL for the fixed-scope connection `provider`
   * (`POST /v1/agents/:agentId/authorize`, body `{ provider }`): send the person who owns the
   * account there; once they consent, the tokens serve every conversation of the agent. A provider
   * the service has not configured rejects with 400 `oauth_not_configured` (use `bind`/`attach`).
   */
  async authorize(provider: string, options: CallOptions = {}): Promise<{ url: string }> {
    return authorize(this.#http, this.#path(), provider, options.signal);
  }

  #path(): string {
    return `/v1/agents/${segment(this.id, 'agent id')}`;
  }

  #webhookPath(webhookId: string): string {
    return `${this.#path()}/webhooks/${segment(webhookId, 'webhook id')}`;
  }

  async #agent(method: 'GET' | 'PATCH' | 'PUT' | 'DELETE', suffix: string, opts: RequestOptions): Promise<Agent> {
    const record = await this.#http.request<AgentRecord>(method, `${this.#path()}${suffix}`, { ...opts, expect: 'object' });
    return toAgent(this.#http, record);
  }
}

/**
 * An agent as the SDK returns it: the `AgentRecord` fields plus the `AgentHandle` methods, so
 * `(await ws.agents.create({ name })).update({ ... })` works. `JSON.stringify(agent)` and
 * `{ ...agent }` give exactly the record fields; store `agent.id` and rebuild a handle later
 * with `ws.agent(id)`.
 *
 * The record's `connections` field (the declared connections) takes the name of the
 * `connections()` method here; the statuses are `ws.agent(agent.id).connections()`.
 */
export type Agent = AgentRecord & Omit<AgentHandle, 'connections'>;

/** @internal Wraps a record from the service into an `Agent`. */
export function toAgent(http: HttpClient, record: AgentRecord): Agent {
  return withRecord(new AgentHandle(http, record.id), record);
}
