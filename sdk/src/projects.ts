import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { type Project, toProject } from './project.js';
import type { CreateProjectFields, ProjectRecord } from './types/project.js';

/** The workspace's projects (`ws.projects`). For one project, use `ws.project(projectId)`. */
export class ProjectsResource {
  readonly #http: HttpClient;

  /** @internal Built by `WorkspaceClient`; not part of the public API. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** Creates a project (`POST /v1/projects`); only `name` is required. */
  async create(fields: CreateProjectFields, options: CallOptions = {}): Promise<Project> {
    const record = await this.#http.request<ProjectRecord>('POST', '/v1/projects', { body: fields, signal: options.signal, expect: 'object' });
    return toProject(this.#http, record);
  }

  /** Every project of the workspace (`GET /v1/projects`). */
  async list(options: CallOptions = {}): Promise<Project[]> {
    const records = await this.#http.request<ProjectRecord[]>('GET', '/v1/projects', { signal: options.signal, expect: 'list' });
    return records.map((record) => toProject(this.#http, record));
  }
}
