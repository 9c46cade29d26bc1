import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import type { FileEntry } from './types/file.js';

/**
 * Options of `agent.knowledge.list`, `project.files` and `conversation.files`. Folders are implied
 * by paths, so a file at `policies/refunds.pdf` shows at the top as the folder `policies`: list
 * with `recursive: true` to see every file, whatever its depth.
 */
export interface FileListOptions extends CallOptions {
  /** The folder to list; the top when omitted. */
  dir?: string;
  /** Every file at any depth under `dir`, by path, with no folder entries (`?recursive=true`). */
  recursive?: boolean;
}

/**
 * @internal `GET <base>[?dir=&recursive=]`: the list of a file space, called as `list(dir?, options?)`
 * (a folder and call options, as before `recursive` existed) or `list(options)`.
 */
export function listFiles(http: HttpClient, base: string, dirOrOptions: string | FileListOptions | undefined, options: CallOptions): Promise<FileEntry[]> {
  const o: FileListOptions = typeof dirOrOptions === 'object' ? dirOrOptions : { ...options, dir: dirOrOptions };
  const query = { dir: o.dir, recursive: o.recursive === undefined ? undefined : String(o.recursive) };
  return http.request<FileEntry[]>('GET', base, { signal: o.signal, query, expect: 'list' });
}
