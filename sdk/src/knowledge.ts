import type { Bytes, HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { type FileListOptions, listFiles } from './file-list.js';
import { filePath, segment } from './paths.js';
import type { FileEntry } from './types/file.js';

/**
 * The knowledge file space of one agent (`agent.knowledge`): files the agent searches with the
 * `knowledge.search` tool. Paths are relative and `/`-separated (`guides/refunds.md`); each
 * segment is percent-encoded on the wire. A path that is empty or holds a `.` or `..` segment
 * rejects with code `invalid_request` before anything is sent.
 */
export class AgentKnowledge {
  readonly #http: HttpClient;
  readonly #agentId: string;

  /** @internal Built by `AgentHandle.knowledge`; not part of the public API. */
  constructor(http: HttpClient, agentId: string) {
    this.#http = http;
    this.#agentId = agentId;
  }

  #url(path?: string): string {
    const base = `/v1/agents/${segment(this.#agentId, 'agent id')}/knowledge`;
    return path === undefined ? base : `${base}/${filePath(path)}`;
  }

  /**
   * Creates or replaces the file at `path` (`PUT /v1/agents/:agentId/knowledge/<path>`, sent as
   * `application/octet-stream`). A string is stored as UTF-8 text. Resolves to the new entry.
   */
  async put(path: string, bytes: Bytes, options: CallOptions = {}): Promise<FileEntry> {
    return this.#http.request<FileEntry>('PUT', this.#url(path), { signal: options.signal, bytes, expect: 'object' });
  }

  /**
   * Lists the entries directly under `dir` (the root when omitted), folders first:
   * `GET /v1/agents/:agentId/knowledge[?dir=&recursive=]`. A file in a folder shows as that
   * folder; `list({ recursive: true })` lists every file at any depth, by path.
   */
  async list(dirOrOptions?: string | FileListOptions, options: CallOptions = {}): Promise<FileEntry[]> {
    return listFiles(this.#http, this.#url(), dirOrOptions, options);
  }

  /**
   * Reads the bytes of the file at `path` (`GET /v1/agents/:agentId/knowledge/<path>`).
   * Decode text with `new TextDecoder().decode(bytes)`.
   */
  async read(path: string, options: CallOptions = {}): Promise<Uint8Array> {
    return this.#http.requestBytes('GET', this.#url(path), { signal: options.signal });
  }

  /** Deletes the file at `path` (`DELETE /v1/agents/:agentId/knowledge/<path>`). */
  async remove(path: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', this.#url(path), { signal: options.signal });
  }
}
