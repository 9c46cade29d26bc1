import type { HttpClient } from './http.js';
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
  /** @internal Built by `Service`; not part of the public API. */
  constructor(protected readonly http: HttpClient) {}

  /** Reads the workspace record (`GET /v1/workspace`). */
  get(options: CallOptions = {}): Promise<Workspace> {
    return this.http.request<Workspace>('GET', '/v1/workspace', options);
  }
}
