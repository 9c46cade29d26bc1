import { AgentHandle } from './agent.js';
import { ApprovalHandle } from './approval.js';
import { ApprovalsResource } from './approvals.js';
import { AuditResource } from './audit.js';
import { AgentsResource } from './agents.js';
import { ConversationHandle } from './conversation.js';
import { ConversationsResource } from './conversations.js';
import { DomainsResource } from './domains.js';
import { EndUserHandle } from './end-user.js';
import { KeysResource } from './keys.js';
import { MembersResource } from './members.js';
import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { ProjectHandle } from './project.js';
import { ProjectsResource } from './projects.js';
import { Turn } from './turn.js';
import type { Workspace, WorkspaceUpdate } from './types/workspace.js';

/**
 * Handle to the caller's workspace (the one the API key belongs to); what `new Service()` and
 * `Service.getWorkspace()` return. Building it sends nothing: the first request happens on
 * the first method call. Its record type is `Workspace`, returned by `get()`.
 */
export class WorkspaceClient {
  /** The workspace's agents: `create`, `list`, `versions`, `deployToTest`, `deployToProd`, `rollback`, `publicToken`, `rotatePublicToken`. */
  readonly agents: AgentsResource;
  /** The workspace's projects: `create`, `list`. */
  readonly projects: ProjectsResource;
  /** Custom domains of deployed agents, with managed certificates: `add`, `list`, `get`, `remove`. */
  readonly domains: DomainsResource;
  /** Tool calls waiting for (or settled by) a person's decision: `list({ status?, turnId? })`; one by id: `ws.approval(id)`. */
  readonly approvals: ApprovalsResource;
  /** The audit log (owners only): `list({ actor?, action?, target?, since?, until?, cursor?, limit? })` a page at a time, `all(filters)` every row. */
  readonly audit: AuditResource;
  /** Conversations across agents and projects: `search({ agentId?, version?, projectId?, endUserId?, status?, since?, until?, q?, cursor?, limit? })` a page at a time, `all(filters)` every one. */
  readonly conversations: ConversationsResource;
  /** API keys with roles (owners only): `create({ name, role })` (the key shown once), `list`, `revoke`. */
  readonly keys: KeysResource;
  /** Members and roles: `list`, `invite({ email, role })` (a one-time link), `update(id, { role })`, `remove`, `resetLink`, `invites`, `revokeInvite`. */
  readonly members: MembersResource;

  /** @internal Built by `Service`; not part of the public API. */
  constructor(protected readonly http: HttpClient) {
    this.agents = new AgentsResource(http);
    this.projects = new ProjectsResource(http);
    this.domains = new DomainsResource(http);
    this.approvals = new ApprovalsResource(http);
    this.audit = new AuditResource(http);
    this.conversations = new ConversationsResource(http);
    this.keys = new KeysResource(http);
    this.members = new MembersResource(http);
  }

  /** Reads the workspace record (`GET /v1/workspace`). */
  get(options: CallOptions = {}): Promise<Workspace> {
    return this.http.request<Workspace>('GET', '/v1/workspace', { signal: options.signal, expect: 'object' });
  }

  /** Changes the workspace's settings (`PATCH /v1/workspace`, owners): e.g. `{ signInDomains: ['example.com'] }`. */
  update(fields: WorkspaceUpdate, options: CallOptions = {}): Promise<Workspace> {
    return this.http.request<Workspace>('PATCH', '/v1/workspace', { body: fields, signal: options.signal, expect: 'object' });
  }

  /** A handle to the agent `agentId`, e.g. an id stored earlier. Sends no request; the id is not checked until a call. */
  agent(agentId: string): AgentHandle {
    return new AgentHandle(this.http, agentId);
  }

  /**
   * A handle to the conversation `conversationId`, of an agent or a project. Sends no request;
   * the id is not checked until a call. `get()` resolves to either kind of conversation.
   */
  conversation(conversationId: string): ConversationHandle {
    return new ConversationHandle(this.http, conversationId);
  }

  /**
   * A handle to an end user of your product, by your own id of them: their conversations,
   * connections and values. Sends no request.
   */
  endUser(endUserId: string): EndUserHandle {
    return new EndUserHandle(this.http, endUserId);
  }

  /**
   * A handle to the approval `approvalId` (prefix `apr_`), as a turn's `approval` event names it:
   * `get()`, `approve(note?)`, `deny(note?)`. Sends no request.
   */
  approval(approvalId: string): ApprovalHandle {
    return new ApprovalHandle(this.http, approvalId);
  }

  /** A handle to the project `projectId`. Sends no request; the id is not checked until a call. */
  project(projectId: string): ProjectHandle {
    return new ProjectHandle(this.http, projectId);
  }

  /**
   * The turn `turnId` (prefix `trn_`) of any conversation of the workspace, to get the outcome
   * of a turn the caller lost track of: one whose `ask()` ended with a `connection_error` (its
   * `turnId` field and message name the turn), one started by another process, or one named
   * by a 409 `turn_in_progress` (`error.turnId`).
   *
   * Returns a `Turn` at once and sends nothing until it is first awaited or iterated; then it
   * reads `GET /v1/turns/:turnId/events` from the first event (`Last-Event-ID: 0`): every event
   * of the turn, live until it ends, or straight away for a turn that has ended. Awaiting
   * resolves to the `done` event's reply (or rejects as for `ask`, e.g. code `turn_failed`);
   * iterating yields every event from `start` to the terminal one. Nothing is sent to the
   * agent and nothing is billed: this only reads. A broken stream is resumed as for `ask`
   * (the `resumeTimeout` option), and a failure to connect at all is retried the same way. An
   * unknown id, or a turn of another workspace, rejects with 404 `turn_not_found`; an id that
   * cannot be put in a URL, with `invalid_request` without a request. `turn.id` is `turnId`.
   */
  turn(turnId: string, options: CallOptions = {}): Turn {
    return new Turn(this.http, { kind: 'follow', turnId, signal: options.signal });
  }
}
