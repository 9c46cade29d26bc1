import { type AgentConversation, toConversation } from './conversation.js';
import { attachBody, authorize, bindBody, listConnections, putCredentials } from './credentials.js';
import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { segment } from './paths.js';
import type { AgentConversationRecord } from './types/conversation.js';
import type { AttachInput, BindInput, ConnectionStatus } from './types/credentials.js';
import type { EndUserErasure, EndUserExport } from './types/end-user.js';

/**
 * `ws.endUser(id)`: an end user of your product, by your own id of them — the id
 * a visitor gives public chat, or the one passed to `agent.start({ endUser })`. Built without a
 * request. Their conversations, and the conversation-scope values that belong to them: every
 * conversation of this end user sees them, no other conversation does.
 */
export class EndUserHandle {
  readonly #http: HttpClient;
  /** The end user's id. */
  readonly id: string;

  /** @internal Built by `ws.endUser(id)`. */
  constructor(http: HttpClient, id: string) {
    this.#http = http;
    this.id = id;
  }

  #path(): string {
    return `/v1/end-users/${segment(this.id, 'endUserId')}`;
  }

  /** The end user's conversations on every agent of the workspace, newest first (`GET /v1/end-users/:id/conversations`). */
  async conversations(options: CallOptions = {}): Promise<AgentConversation[]> {
    const records = await this.#http.request<AgentConversationRecord[]>('GET', `${this.#path()}/conversations`, { signal: options.signal, expect: 'list' });
    return records.map((record) => toConversation(this.#http, record));
  }

  /** Every OAuth provider the service has configured and every connection stored for the end user, with its status. */
  connections(options: CallOptions = {}): Promise<ConnectionStatus[]> {
    return listConnections(this.#http, this.#path(), options.signal);
  }

  /** A consent URL whose tokens will belong to this end user (send them there). */
  authorize(provider: string, options: CallOptions = {}): Promise<{ url: string }> {
    return authorize(this.#http, this.#path(), provider, options.signal);
  }

  /** Supplies values that serve every conversation of the end user (`bind` form: `{ secrets?, connections? }`). */
  async bind(input: BindInput, options: CallOptions = {}): Promise<void> {
    await putCredentials(this.#http, this.#path(), bindBody(input), options.signal);
  }

  /** Supplies values that serve every conversation of the end user (`attach` form: a connection, a list of them, or `{ secrets }`). */
  async attach(input: AttachInput, options: CallOptions = {}): Promise<void> {
    await putCredentials(this.#http, this.#path(), attachBody(input), options.signal);
  }

  /**
   * Everything the service stores about the end user, as one document: their conversations with
   * messages and turn events, files as signed links, secret and connection names (never values),
   * approvals (`GET /v1/end-users/:id/export`; owner keys only).
   */
  export(options: CallOptions = {}): Promise<EndUserExport> {
    return this.#http.request<EndUserExport>('GET', `${this.#path()}/export`, { signal: options.signal });
  }

  /**
   * Starts erasing everything the service stores about the end user, their turns' workflow
   * histories included (`DELETE /v1/end-users/:id`; owner keys only). Resolves with the erasure,
   * usually `running`: follow it with `ws.endUser(id).erasure(erasureId)` until `done`. Asking
   * again while it runs answers the same erasure.
   */
  erase(options: CallOptions = {}): Promise<EndUserErasure> {
    return this.#http.request<EndUserErasure>('DELETE', this.#path(), { signal: options.signal });
  }

  /** An erasure as it stands (`GET /v1/erasures/:erasureId`): `running` with the counts so far, then `done`. */
  erasure(erasureId: string, options: CallOptions = {}): Promise<EndUserErasure> {
    return this.#http.request<EndUserErasure>('GET', `/v1/erasures/${segment(erasureId, 'erasureId')}`, { signal: options.signal });
  }

  /** Forgets the end user's connection; the service revokes it at the provider when it can. */
  async disconnect(provider: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', `${this.#path()}/connections/${segment(provider, 'provider')}`, { signal: options.signal });
  }
}
