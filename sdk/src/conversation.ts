import { attachBody, authorize, bindBody, listConnections, putCredentials } from './credentials.js';
import { type FileListOptions, listFiles } from './file-list.js';
import { type FileUrlOptions, requestFileUrl } from './file-urls.js';
import type { Bytes, HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { filePath, segment } from './paths.js';
import { withRecord } from './records.js';
import { Turn } from './turn.js';
import type { AgentConversationRecord, Attachment, ConversationRecord, Message, ProjectConversationRecord } from './types/conversation.js';
import type { AttachInput, BindInput, ConnectionStatus } from './types/credentials.js';
import type { FileEntry } from './types/file.js';

/** Options of `conversation.ask(text, options)`. */
export interface AskOptions {
  /** Files and images sent with the text; see `attachmentFromBytes`. Sent as given. */
  attachments?: Attachment[];
  /**
   * Aborts the turn: awaiting it rejects with code `aborted`, iterating it yields an `error`
   * event (not retryable) and ends.
   */
  signal?: AbortSignal;
}

/**
 * Methods on one conversation, bound to its id. `ws.conversation(id)` and
 * `agent.conversation(id)` build one without any request, so a stored id gives back a working
 * handle; every conversation the SDK returns is also one. Each method is one request, except
 * `ask`, whose `Turn` may reconnect to a broken event stream (see `Turn`).
 *
 * The conversation is addressed by its id alone: a handle from `agent.conversation(id)` does
 * not check that the conversation belongs to that agent. `R` is the record type `get()`
 * resolves to: `AgentConversationRecord` from an agent, either kind from `ws.conversation(id)`.
 *
 * An id, or a file path, that is empty or holds a `.` or `..` segment makes the call reject
 * with code `invalid_request` (for `ask`: the turn fails with it) without a request.
 */
export class ConversationHandle<R extends ConversationRecord = ConversationRecord> {
  /** The conversation's id (prefix `cnv_`). */
  readonly id: string;
  readonly #http: HttpClient;

  /** @internal Built by `ws.conversation(id)`, `agent.conversation(id)` and the SDK's answers; not part of the public API. */
  constructor(http: HttpClient, id: string) {
    this.id = id;
    this.#http = http;
  }

  /**
   * Sends `text` as the next user message (`POST /v1/conversations/:conversationId/turns`, body
   * `{ text, attachments? }`) and returns the `Turn` at once: await it for the reply, or
   * iterate it for its events. The request is sent now, once, whether or not the turn is
   * awaited or iterated. Not an `async` method: it returns the `Turn` itself. A dropped stream
   * is resumed within the `resumeTimeout` option (see `Turn`); keep `turn.id` to get the turn's
   * outcome later with `ws.turn(turnId)`.
   */
  ask(text: string, options: AskOptions = {}): Turn {
    return new Turn(this.#http, { kind: 'ask', conversationId: this.id, text, attachments: options.attachments, signal: options.signal });
  }

  /** Reads the conversation (`GET /v1/conversations/:conversationId`). */
  async get(options: CallOptions = {}): Promise<ConversationOf<R>> {
    const record = await this.#http.request<R>('GET', this.#path(), { signal: options.signal, expect: 'object' });
    return toConversation(this.#http, record);
  }

  /** The conversation's messages, oldest first (`GET /v1/conversations/:conversationId/messages`). */
  async messages(options: CallOptions = {}): Promise<Message[]> {
    return this.#http.request<Message[]>('GET', `${this.#path()}/messages`, { signal: options.signal, expect: 'list' });
  }

  /** Ends the conversation; later turns are refused with 409 `conversation_ended` (`POST /v1/conversations/:conversationId/end`). */
  async end(options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('POST', `${this.#path()}/end`, { signal: options.signal });
  }

  /**
   * Lists the entries directly under `dir` of the conversation's file space, the root when omitted
   * (`GET /v1/conversations/:conversationId/files[?dir=&recursive=]`); `files({ recursive: true })`:
   * every file at any depth, by path.
   */
  async files(dirOrOptions?: string | FileListOptions, options: CallOptions = {}): Promise<FileEntry[]> {
    return listFiles(this.#http, `${this.#path()}/files`, dirOrOptions, options);
  }

  /** Reads the file at `path` as UTF-8 text (`GET /v1/conversations/:conversationId/files/<path>`). */
  async readFile(path: string, options: CallOptions = {}): Promise<string> {
    return new TextDecoder().decode(await this.readFileBytes(path, options));
  }

  /** Reads the bytes of the file at `path` (`GET /v1/conversations/:conversationId/files/<path>`). */
  async readFileBytes(path: string, options: CallOptions = {}): Promise<Uint8Array> {
    return this.#http.requestBytes('GET', this.#file(path), { signal: options.signal });
  }

  /**
   * Creates or replaces the file at `path` (`PUT /v1/conversations/:conversationId/files/<path>`,
   * sent as `application/octet-stream`). A string is stored as UTF-8 text. Resolves to the new entry.
   */
  async writeFile(path: string, bytes: Bytes, options: CallOptions = {}): Promise<FileEntry> {
    return this.#http.request<FileEntry>('PUT', this.#file(path), { signal: options.signal, bytes, expect: 'object' });
  }

  /** Deletes the file at `path` (`DELETE /v1/conversations/:conversationId/files/<path>`). */
  async removeFile(path: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', this.#file(path), { signal: options.signal });
  }

  /**
   * A URL that serves the file at `path` without an API key, for a limited time
   * (`POST /v1/conversations/:conversationId/file-urls`, body `{ path, download?, ttl? }`).
   */
  async fileUrl(path: string, options: FileUrlOptions = {}): Promise<string> {
    return requestFileUrl(this.#http, this.#path(), path, options);
  }

  /**
   * Supplies values for the conversation-scope secrets and connections of the agent version the
   * conversation runs on (`PUT /v1/conversations/:conversationId/credentials`, body
   * `{ secrets?, connections? }`). Each name must be declared by that
   * version with scope `conversation` (fixed-scope values go to `agent.bind`), else the call
   * rejects with 400 `invalid_request` naming it and nothing is stored. Given names replace
   * their stored values; others stay. Once every required value is supplied the conversation
   * is `ready`. Values are stored encrypted and never returned by any call.
   */
  async bind(input: BindInput, options: CallOptions = {}): Promise<void> {
    await putCredentials(this.#http, this.#path(), bindBody(input), options.signal);
  }

  /**
   * The same as `bind`, taking connections as they come: `attach(connection)`, `attach([c1, c2])` or
   * `attach({ secrets })`. One request (`PUT /v1/conversations/:conversationId/credentials`).
   */
  async attach(input: AttachInput, options: CallOptions = {}): Promise<void> {
    await putCredentials(this.#http, this.#path(), attachBody(input), options.signal);
  }

  /**
   * The connections of the conversation's agent version as the conversation sees them: its own
   * values and its agent's (`GET /v1/conversations/:conversationId/connections`).
   */
  async connections(options: CallOptions = {}): Promise<ConnectionStatus[]> {
    return listConnections(this.#http, this.#path(), options.signal);
  }

  /**
   * Asks for an OAuth consent URL for the conversation-scope connection `provider`
   * (`POST /v1/conversations/:conversationId/authorize`, body `{ provider }`). The tokens go to
   * the conversation's end user when it has one (serving their later conversations too), else to
   * the conversation. A provider the service has not configured rejects with 400
   * `oauth_not_configured` (use `bind`/`attach`).
   */
  async authorize(provider: string, options: CallOptions = {}): Promise<{ url: string }> {
    return authorize(this.#http, this.#path(), provider, options.signal);
  }

  #path(): string {
    return `/v1/conversations/${segment(this.id, 'conversation id')}`;
  }

  #file(path: string): string {
    return `${this.#path()}/files/${filePath(path)}`;
  }
}

/**
 * A conversation started on an agent, as the SDK returns it: the `AgentConversationRecord`
 * fields plus the `ConversationHandle` methods. `JSON.stringify` and spread give exactly the
 * record fields.
 */
export type AgentConversation = AgentConversationRecord & ConversationHandle<AgentConversationRecord>;

/** A conversation of a project, as the SDK returns it: the record fields plus the `ConversationHandle` methods. */
export type ProjectConversation = ProjectConversationRecord & ConversationHandle<ProjectConversationRecord>;

/** Either kind of conversation, as `ws.conversation(id).get()` returns it; tell them apart with `'agentId' in conversation`. */
export type Conversation = AgentConversation | ProjectConversation;

/**
 * The conversation object for a record type: `AgentConversation` for `AgentConversationRecord`,
 * `ProjectConversation` for `ProjectConversationRecord`, `Conversation` for either.
 */
export type ConversationOf<R extends ConversationRecord> = R extends AgentConversationRecord
  ? AgentConversation
  : R extends ProjectConversationRecord
    ? ProjectConversation
    : never;

/** @internal Wraps a record from the service into a conversation object. */
export function toConversation<R extends ConversationRecord>(http: HttpClient, record: R): ConversationOf<R> {
  return withRecord(new ConversationHandle<R>(http, record.id), record) as unknown as ConversationOf<R>;
}
