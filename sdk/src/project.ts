import type { HttpClient, RequestOptions } from './http.js';
import type { CallOptions } from './options.js';
import { segment } from './paths.js';
import { withRecord } from './records.js';
import type { ProjectRecord, UpdateProjectFields } from './types/project.js';

/**
 * Methods on one project, bound to its id. `ws.project(projectId)` builds one without any
 * request; every `Project` the SDK returns is also one. Each method is one request; those that
 * change the project resolve to its new state as a new `Project`, leaving the object they are
 * called on unchanged. An id that is empty, `.` or `..` makes every call reject with code
 * `invalid_request`, without a request.
 */
export class ProjectHandle {
  /** The project's id (prefix `prj_`). */
  readonly id: string;
  readonly #http: HttpClient;

  /** @internal Built by `ws.project(id)` and by the SDK's answers; not part of the public API. */
  constructor(http: HttpClient, id: string) {
    this.id = id;
    this.#http = http;
  }

  /** Changes `name`, `goal`, `managerInstructions` or `grade` (`PATCH /v1/projects/:projectId`). */
  async update(fields: UpdateProjectFields, options: CallOptions = {}): Promise<Project> {
    return this.#project('PATCH', '', { body: fields, signal: options.signal });
  }

  /** Reads the project (`GET /v1/projects/:projectId`). */
  async get(options: CallOptions = {}): Promise<Project> {
    return this.#project('GET', '', { signal: options.signal });
  }

  /** Adds a workspace agent as a member (`POST /v1/projects/:projectId/agents`, body `{ agentId }`). */
  async addAgent(agentId: string, options: CallOptions = {}): Promise<Project> {
    return this.#project('POST', '/agents', { body: { agentId }, signal: options.signal });
  }

  /** Removes a member agent; the agent itself stays (`DELETE /v1/projects/:projectId/agents/:agentId`). */
  async removeAgent(agentId: string, options: CallOptions = {}): Promise<Project> {
    return this.#project('DELETE', `/agents/${segment(agentId, 'agent id')}`, { signal: options.signal });
  }

  /** Sets `status` to `archived` (`POST /v1/projects/:projectId/archive`). */
  async archive(options: CallOptions = {}): Promise<Project> {
    return this.#project('POST', '/archive', { signal: options.signal });
  }

  /** Deletes the project; its member agents stay (`DELETE /v1/projects/:projectId`). */
  async delete(options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', this.#path(), { signal: options.signal });
  }

  #path(): string {
    return `/v1/projects/${segment(this.id, 'project id')}`;
  }

  async #project(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', suffix: string, opts: RequestOptions): Promise<Project> {
    const record = await this.#http.request<ProjectRecord>(method, `${this.#path()}${suffix}`, { ...opts, expect: 'object' });
    return toProject(this.#http, record);
  }
}

/**
 * A project as the SDK returns it: the `ProjectRecord` fields plus the `ProjectHandle` methods.
 * `JSON.stringify(project)` and `{ ...project }` give exactly the record fields.
 */
export type Project = ProjectRecord & ProjectHandle;

/** @internal Wraps a record from the service into a `Project`. */
export function toProject(http: HttpClient, record: ProjectRecord): Project {
  return withRecord(new ProjectHandle(http, record.id), record);
}
