/**
 * The workspace-wide conversation search (`ws.conversations.search`). The server's schemas are in
 * `domain/conversation-search.ts`.
 */

/**
 * How a conversation stands, by its latest turn. `waiting`: running, with a tool call waiting for
 * a person's approval; `running` is then only the turns that wait for nobody.
 */
export type ConversationStatus = 'running' | 'done' | 'error' | 'cancelled' | 'waiting';

/** The latest turn of a conversation, as the search shows it. */
export interface ConversationLastTurn {
  /** Turn id (prefix `trn_`). */
  id: string;
  status: 'running' | 'done' | 'error' | 'cancelled';
  startedAt: string;
  /** Null while it runs. */
  finishedAt: string | null;
  /** A tool call of this turn waits for a person's approval. */
  waiting: boolean;
}

/** One conversation of the search: of an agent, or of a project's manager (`agentId` null). */
export interface ConversationSummary {
  /** Conversation id (prefix `cnv_`). */
  id: string;
  /** Null for a conversation with a project's manager. */
  agentId: string | null;
  /** The project's, for its manager's and its members' delegated conversations. */
  projectId: string | null;
  /** The agent version it is pinned to; null for a project's manager. */
  version: number | null;
  /** Its first message on one line, or null before one. */
  title: string | null;
  /** The end user it is for, as `AgentConversationRecord.endUser`. */
  endUser?: { id: string; name?: string; email?: string; verified: boolean };
  startedAt: string;
  /** Null while it is open. */
  endedAt: string | null;
  /** Null before the first message. */
  lastTurn: ConversationLastTurn | null;
}

/** One page of `ws.conversations.search`: newest first, and the cursor of the next page (null on the last). */
export interface ConversationSearchPage {
  data: ConversationSummary[];
  nextCursor: string | null;
}
