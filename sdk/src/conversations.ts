import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import type { ConversationSearchPage, ConversationStatus, ConversationSummary } from './types/conversation-search.js';
import { allPages, isoOf } from './pages.js';

/** What `ws.conversations.search` and `ws.conversations.all` select. */
export interface ConversationSearchFilters extends CallOptions {
  agentId?: string;
  /** Only conversations pinned to this version (with `agentId`). */
  version?: number;
  projectId?: string;
  /** Your id of the end user. */
  endUserId?: string;
  /** By the latest turn; `waiting`: a tool call waits for approval. */
  status?: ConversationStatus;
  /** Only conversations started at or after this time. */
  since?: Date | string;
  /** Only conversations started before this time. */
  until?: Date | string;
  /** Words the title or one message holds (case-insensitive; each word matches a word's start). */
  q?: string;
}

/** What `ws.conversations.search` takes besides the filters. */
export interface SearchConversationsOptions extends ConversationSearchFilters {
  /** The `nextCursor` of the page before. */
  cursor?: string;
  /** Conversations per page, 1–100 (default 50). */
  limit?: number;
}

/**
 * The workspace's conversations across agents and projects (`ws.conversations`). A viewer sees
 * only the conversations they may read; reviewers and above, all of them.
 */
export class ConversationsResource {
  readonly #http: HttpClient;

  /** @internal Built by `WorkspaceClient`; not part of the public API. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** One page, newest first (`GET /v1/conversations`); pass its `nextCursor` as `cursor` for the next. */
  search(options: SearchConversationsOptions = {}): Promise<ConversationSearchPage> {
    const { agentId, version, projectId, endUserId, status, q, cursor, limit } = options;
    const query = { agentId, version, projectId, endUserId, status, q, since: isoOf(options.since), until: isoOf(options.until), cursor, limit };
    return this.#http.request<ConversationSearchPage>('GET', '/v1/conversations', { query, signal: options.signal, expect: 'object' });
  }

  /** Every conversation the filters select, newest first, one page (100) per request as the loop asks for more. */
  async *all(filters: ConversationSearchFilters = {}): AsyncGenerator<ConversationSummary> {
    yield* allPages((cursor) => this.search({ ...filters, cursor, limit: 100 }));
  }
}
