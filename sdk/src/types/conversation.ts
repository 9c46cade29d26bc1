/**
 * Conversations: the records of either kind, their messages, and the attachments a turn sends.
 * The server's schemas are in `domain/conversation.ts`.
 */

/** A secret or connection a conversation needs before it is `ready`. */
export interface Requirement {
  /** What has to be supplied. */
  kind: 'secret' | 'connection';
  /** The secret's name or the connection's provider. */
  name: string;
  /** Whether the conversation cannot take turns without it. */
  required: boolean;
}

/**
 * A conversation started on an agent: the plain data the service returns. The SDK hands it out
 * as an `AgentConversation`, which adds the methods of `ConversationHandle`.
 */
export interface AgentConversationRecord {
  /** Conversation id (prefix `cnv_`). */
  id: string;
  /** The agent the conversation runs on. */
  agentId: string;
  /** The agent version the conversation runs on. */
  version: number;
  /** When the conversation started. */
  startedAt: string;
  /** Short title, once the service has given it one. */
  title?: string;
  /** Whether turns can be taken: false while a required item of `requires` is missing. */
  ready: boolean;
  /** Secrets and connections the conversation needs. */
  requires: Requirement[];
  /** When the conversation was ended (`conversation.end()`); absent while it is open. */
  endedAt?: string;
  /**
   * The end user the conversation is for: the one given to `agent.start({ endUser })`, or the
   * visitor of public chat (the hosted page, the embed or `POST /v1/public/chat`).
   */
  endUser?: {
    /** The end user's id (for a visitor: `data-user-id`, `identify`, or a generated one). */
    id: string;
    /** Display name, when one was given (a verified visitor's: the token's). */
    name?: string;
    /** E-mail address, when one was given (a verified visitor's: the token's). */
    email?: string;
    /**
     * True when the conversation acts as this end user, so their stored values serve it: started
     * through the API, or a visitor who proved the id with a token signed by your backend
     * (`signVisitorToken`). False for a visitor's self-attested id: a routing hint, never a permission.
     */
    verified: boolean;
  };
  /**
   * Where the conversation was started: `public` (public chat with the production version) or
   * `test` (chat on a test deployment's URL). Absent for conversations started through the API.
   */
  channel?: 'public' | 'test';
  /**
   * The schedule, interval or webhook trigger that started the conversation: its kind and its index in
   * the agent's `triggers`. Absent for conversations started otherwise.
   */
  trigger?: { kind: 'schedule' | 'interval' | 'webhook'; index: number };
}

/**
 * A conversation started on a project: the plain data the service returns. The SDK hands it
 * out as a `ProjectConversation`, which adds the methods of `ConversationHandle`.
 */
export interface ProjectConversationRecord {
  /** Conversation id (prefix `cnv_`). */
  id: string;
  /** The project the conversation belongs to. */
  projectId: string;
  /** When the conversation started. */
  startedAt: string;
  /** Short title, once the service has given it one. */
  title?: string;
  /** Whether turns can be taken: false while a required item of `requires` is missing. */
  ready: boolean;
  /** Secrets and connections the conversation needs. */
  requires: Requirement[];
  /** When the conversation was ended (`conversation.end()`); absent while it is open. */
  endedAt?: string;
}

/** Either kind of conversation record; tell them apart with `'agentId' in record`. */
export type ConversationRecord = AgentConversationRecord | ProjectConversationRecord;

/** One message of a conversation's history (`conversation.messages()`). */
export interface Message {
  /** Who wrote it. */
  role: 'user' | 'assistant';
  /** The text. */
  content: string;
  /** When it was written. */
  at: string;
}

/**
 * A file or image sent with a turn (`conversation.ask(text, { attachments })`).
 * `attachmentFromBytes` builds one from raw bytes.
 */
export interface Attachment {
  /** `image` for pictures the model should see, `file` for anything else. */
  kind: 'image' | 'file';
  /** File name shown to the agent. */
  name?: string;
  /** Media type of the content, e.g. `image/png`, `application/pdf`. */
  mimeType: string;
  /** The content, base64-encoded (standard alphabet, with padding). */
  data: string;
}

/**
 * How a turn stands after `turn.cancel()`. `cancelled`: the cancel stopped it.
 * `done` / `error`: it had already ended, and the cancel changed nothing. `running`: no worker
 * has acted on the cancel within a few seconds; it will when one does.
 */
export interface TurnState {
  /** The turn's id (`trn_…`). */
  turnId: string;
  status: 'running' | 'done' | 'error' | 'cancelled';
}
