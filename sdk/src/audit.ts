import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import type { AuditEvent, AuditPage } from './types/audit.js';
import { allPages, isoOf } from './pages.js';

/** What `ws.audit.list` and `ws.audit.all` select. */
export interface AuditFilters extends CallOptions {
  /** Only rows of this API key (`key_…`) or member (`mem_…`). */
  actor?: string;
  /** Only rows of this action, e.g. `updateAgent` or `signIn`. */
  action?: string;
  /** Only rows with this id among their targets (an agent, a version, a key…). */
  target?: string;
  /** Only rows at or after this time. */
  since?: Date | string;
  /** Only rows before this time. */
  until?: Date | string;
}

/** What `ws.audit.list` takes besides the filters. */
export interface ListAuditOptions extends AuditFilters {
  /** The `nextCursor` of the page before. */
  cursor?: string;
  /** Rows per page, 1–200 (default 50). */
  limit?: number;
}

/**
 * The workspace's audit log (`ws.audit`), for owners (any other role: 403 `forbidden`): every
 * change made through the API, sign-ins, invites, keys, deployments — who, what, when, from where.
 */
export class AuditResource {
  readonly #http: HttpClient;

  /** @internal Built by `WorkspaceClient`; not part of the public API. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** One page of rows, newest first (`GET /v1/audit`); pass its `nextCursor` as `cursor` for the next. */
  list(options: ListAuditOptions = {}): Promise<AuditPage> {
    const { actor, action, target, cursor, limit } = options;
    const query = { actor, action, target, since: isoOf(options.since), until: isoOf(options.until), cursor, limit };
    return this.#http.request<AuditPage>('GET', '/v1/audit', { query, signal: options.signal, expect: 'object' });
  }

  /** Every row the filters select, newest first, one page (200 rows) per request as the loop asks for more. */
  async *all(filters: AuditFilters = {}): AsyncGenerator<AuditEvent> {
    yield* allPages((cursor) => this.list({ ...filters, cursor, limit: 200 }));
  }
}
