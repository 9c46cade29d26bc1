import type { Approval } from './approval.js';
import type { Message } from './conversation.js';
import type { TurnEvent } from './turn-event.js';

/** One turn of an exported conversation, with its event log. */
export interface EndUserExportTurn {
  /** Turn id. */
  id: string;
  status: 'running' | 'done' | 'error' | 'cancelled';
  startedAt: string;
  finishedAt?: string;
  /** The turn's events in order (older events may have been pruned by the service's retention). */
  events: Array<{ seq: number; at: string; event: TurnEvent }>;
}

/** One file of an exported conversation's drive. */
export interface EndUserExportFile {
  path: string;
  mimeType: string;
  /** Bytes. */
  size: number;
  modifiedAt: string;
  /** A signed link that serves the file without an API key for an hour. */
  url: string;
}

/** One conversation of the end user, whole. */
export interface EndUserExportConversation {
  /** Conversation id (prefix `cnv_`). */
  id: string;
  agentId: string;
  /** The agent version it is pinned to. */
  version: number;
  /** `public` (public chat and the embed) or `test` (a test URL); absent when started with the API. */
  channel?: 'public' | 'test';
  /** Who the conversation names: `verified` false for a visitor who only typed the id. */
  endUser: { id: string; name?: string; email?: string; verified: boolean };
  title?: string;
  parameters: Record<string, unknown>;
  startedAt: string;
  endedAt?: string;
  messages: Message[];
  turns: EndUserExportTurn[];
  /** The conversation's files, as signed links. */
  files: EndUserExportFile[];
}

/** A secret stored for the end user or one of their conversations: its name, never its value. */
export interface EndUserExportSecret {
  name: string;
  /** `endUser`: the end user's own (every conversation of theirs sees it); `conversation`: one conversation's. */
  scope: 'endUser' | 'conversation';
  /** With `scope: 'conversation'`: which one. */
  conversationId?: string;
  updatedAt: string;
}

/** A connection stored for the end user or one of their conversations: its provider, never its tokens. */
export interface EndUserExportConnection {
  provider: string;
  /** As for secrets. */
  scope: 'endUser' | 'conversation';
  conversationId?: string;
  updatedAt: string;
  /** The account the provider named, when it named one. */
  accountLabel?: string;
}

/** Everything the service stores about one end user (`endUser.export()`). */
export interface EndUserExport {
  endUserId: string;
  exportedAt: string;
  /** Every conversation carrying the id, newest first: started by the API, by verified visitors and by visitors who only typed it. */
  conversations: EndUserExportConversation[];
  secrets: EndUserExportSecret[];
  connections: EndUserExportConnection[];
  /** Tool calls of their conversations that waited for a person's decision. */
  approvals: Approval[];
  /** Always empty: the service has no feedback feature yet. */
  feedback: never[];
}

/** What an erasure removed, per kind. */
export interface ErasureCounts {
  conversations: number;
  messages: number;
  turns: number;
  turnEvents: number;
  /** Temporal executions of the end user's turns deleted (history and all), or found already gone. */
  turnWorkflows: number;
  files: number;
  /** Secret values of the end user and of their conversations. */
  secrets: number;
  connections: number;
  /** Consent links handed out for them. */
  oauthStates: number;
  approvals: number;
}

/** An erasure of one end user (`endUser.erase()`); a receipt with its counts is in the audit log once `done`. */
export interface EndUserErasure {
  /** Erasure id (prefix `era_`). */
  id: string;
  /** `running` (the counts grow) until everything is gone, then `done`. */
  status: 'running' | 'done';
  counts: ErasureCounts;
  createdAt: string;
  finishedAt?: string;
}
