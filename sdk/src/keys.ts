import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { segment } from './paths.js';
import type { ApiKey, CreatedApiKey, WorkspaceRole } from './types/workspace.js';

/** The workspace's API keys (`ws.keys`); owners only (403 `forbidden` for any other role). */
export class KeysResource {
  readonly #http: HttpClient;

  /** @internal Built by `WorkspaceClient`; not part of the public API. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Mints a key that may do what `role` allows (`POST /v1/keys`). The key is in the answer once:
   * store it now. A key acts with its role on every route, so give each use the least it needs.
   */
  create(input: { name: string; role: WorkspaceRole }, options: CallOptions = {}): Promise<CreatedApiKey> {
    return this.#http.request<CreatedApiKey>('POST', '/v1/keys', { body: { name: input.name, role: input.role }, signal: options.signal, expect: 'object' });
  }

  /** Every key of the workspace, live and revoked, oldest first (`GET /v1/keys`); never the secret. */
  list(options: CallOptions = {}): Promise<ApiKey[]> {
    return this.#http.request<ApiKey[]>('GET', '/v1/keys', { signal: options.signal, expect: 'list' });
  }

  /** Revokes the key at once on every API process (`DELETE /v1/keys/:keyId`; 204); 404 `key_not_found`. */
  async revoke(keyId: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', `/v1/keys/${segment(keyId, 'key id')}`, { signal: options.signal });
  }
}
