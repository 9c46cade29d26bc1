import { ServiceError } from './errors.js';
import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { filePath } from './paths.js';

/** Options of `conversation.fileUrl(path, options)` and `project.fileUrl(path, options)`. */
export interface FileUrlOptions extends CallOptions {
  /** Make the URL download the file (`Content-Disposition: attachment`) instead of showing it. */
  download?: boolean;
  /** How long the URL works, in seconds; the service's default when omitted. */
  ttl?: number;
}

/** @internal `POST <owner>/file-urls`, body `{ path, download?, ttl? }`: the signed URL of a file of that owner's file space. */
export async function requestFileUrl(http: HttpClient, owner: string, path: string, options: FileUrlOptions): Promise<string> {
  filePath(path); // refuse an unusable path before sending, as the other file calls do
  const body: { path: string; download?: boolean; ttl?: number } = { path };
  if (options.download !== undefined) body.download = options.download;
  if (options.ttl !== undefined) body.ttl = options.ttl;
  const answer = await http.request<{ url?: unknown }>('POST', `${owner}/file-urls`, { body, signal: options.signal, expect: 'object' });
  if (typeof answer.url !== 'string') {
    throw new ServiceError({ code: 'invalid_response', status: 200, retryable: false, message: 'the service answered fileUrl without a url string' });
  }
  return answer.url;
}
