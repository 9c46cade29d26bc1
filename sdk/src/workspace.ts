import { AgentHandle } from './agent.js';
import { AgentsResource } from './agents.js';
import { ConversationHandle } from './conversation.js';
import type { HttpClient } from './http.js';
import { ProjectHandle } from './project.js';
import { ProjectsResource } from './projects.js';
import type { Workspace } from './types.js';

/** Options every call accepts. */
export interface CallOptions {
  /** Aborts the call; it then rejects with a `ServiceError` of code `aborted`. */
  signal?: AbortSignal;
}

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

  /** @internal Built by `Service`; not part of the public API. */
  constructor(protected readonly http: HttpClient) {
    this.agents = new AgentsResource(http);
    this.projects = new ProjectsResource(http);
  }

  /** Reads the workspace record (`GET /v1/workspace`). */
  get(options: CallOptions = {}): Promise<Workspace> {
    return this.http.request<Workspace>('GET', '/v1/workspace', { signal: options.signal, expect: 'object' });
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

  /** A handle to the project `projectId`. Sends no request; the id is not checked until a call. */
  project(projectId: string): ProjectHandle {
    return new ProjectHandle(this.http, projectId);
  }
}
