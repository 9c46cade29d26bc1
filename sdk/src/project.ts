import { type ProjectConversation, toConversation } from './conversation.js';
import { type FileListOptions, listFiles } from './file-list.js';
import { type FileUrlOptions, requestFileUrl } from './file-urls.js';
import type { HttpClient, RequestOptions } from './http.js';
import type { CallOptions } from './options.js';
import { filePath, segment } from './paths.js';
import { withRecord } from './records.js';
import type { ProjectConversationRecord } from './types/conversation.js';
import type { FileEntry } from './types/file.js';
import type { ProjectRecord, UpdateProjectFields } from './types/project.js';

/** Options of `project.start(options)`. */
export interface StartProjectConversationOptions extends CallOptions {
  /**
   * Values for the conversation, by name (letters, digits, `_` and `-`, starting with a letter):
   * shown to the manager, and given to each member whose version declares a parameter of that name.
   */
  parameters?: Record<string, string | number>;
}

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

  /**
   * Starts a conversation with the project's manager (`POST /v1/projects/:projectId/conversations`,
   * body `{ parameters? }`). Resolves to it with its methods: `ask` (the manager answers,
   * delegating to member agents: each delegation shows as a `task` step), `messages`, `end`,
   * files. An archived project rejects with 409 `project_archived`.
   */
  async start(options: StartProjectConversationOptions = {}): Promise<ProjectConversation> {
    const body = options.parameters !== undefined ? { parameters: options.parameters } : {};
    const record = await this.#http.request<ProjectConversationRecord>('POST', `${this.#path()}/conversations`, { body, signal: options.signal, expect: 'object' });
    return toConversation(this.#http, record);
  }

  /** The project's conversations with its manager, newest first (`GET /v1/projects/:projectId/conversations`). */
  async conversations(options: CallOptions = {}): Promise<ProjectConversation[]> {
    const records = await this.#http.request<ProjectConversationRecord[]>('GET', `${this.#path()}/conversations`, { signal: options.signal, expect: 'list' });
    return records.map((record) => toConversation(this.#http, record));
  }

  /**
   * Lists the entries directly under `dir` of the project's file space, the root when omitted
   * (`GET /v1/projects/:projectId/files[?dir=&recursive=]`): what its conversations and its members'
   * delegated turns wrote. `files({ recursive: true })`: every file at any depth, by path.
   */
  async files(dirOrOptions?: string | FileListOptions, options: CallOptions = {}): Promise<FileEntry[]> {
    return listFiles(this.#http, `${this.#path()}/files`, dirOrOptions, options);
  }

  /** Reads the project's file at `path` as UTF-8 text (`GET /v1/projects/:projectId/files/<path>`). */
  async readFile(path: string, options: CallOptions = {}): Promise<string> {
    return new TextDecoder().decode(await this.readFileBytes(path, options));
  }

  /** Reads the bytes of the project's file at `path` (`GET /v1/projects/:projectId/files/<path>`). */
  async readFileBytes(path: string, options: CallOptions = {}): Promise<Uint8Array> {
    return this.#http.requestBytes('GET', `${this.#path()}/files/${filePath(path)}`, { signal: options.signal });
  }

  /**
   * A URL that serves the project's file at `path` without an API key, for a limited time
   * (`POST /v1/projects/:projectId/file-urls`, body `{ path, download?, ttl? }`).
   */
  async fileUrl(path: string, options: FileUrlOptions = {}): Promise<string> {
    return requestFileUrl(this.#http, this.#path(), path, options);
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
