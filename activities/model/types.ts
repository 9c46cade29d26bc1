/**
 * The one small interface every model provider implements: stream a completion that may ask
 * for tool calls. The turn's model activity owns retries (Temporal), so providers never retry;
 * they classify failures with `ModelError` instead.
 */
import type { TranscriptItem, TranscriptToolCall } from '../../domain/turn-transcript';

/** A JSON Schema object describing a tool's arguments (type: 'object'). */
export type JsonSchemaObject = Record<string, unknown>;

export interface ModelTool {
  /** Name the model calls the tool by: `[A-Za-z0-9_-]{1,64}`. */
  name: string;
  description: string;
  parameters: JsonSchemaObject;
}

/** A tool call the model asks for: the transcript's, so results travel through the workflow as they are. */
export type ModelToolCall = TranscriptToolCall;

export type ModelContentPart =
  | { type: 'text'; text: string }
  /** `data` is base64 without a `data:` prefix. */
  | { type: 'image'; mimeType: string; data: string };

type TranscriptReply = Extract<TranscriptItem, { role: 'assistant' }>;

/**
 * A message of the conversation as a provider sends it: the user's, or a transcript item — an
 * assistant reply (an earlier turn's carries no tool calls) or a tool result.
 */
export type ModelMessage =
  | { role: 'user'; content: string | ModelContentPart[] }
  | (Omit<TranscriptReply, 'toolCalls'> & Partial<Pick<TranscriptReply, 'toolCalls'>>)
  | Extract<TranscriptItem, { role: 'tool' }>;

export interface ModelRequest {
  /** Provider-specific model name, e.g. `gpt-4.1-mini`. */
  model: string;
  system: string;
  messages: ModelMessage[];
  tools: ModelTool[];
  /** Aborts the HTTP request (activity cancellation or heartbeat loss). */
  signal?: AbortSignal;
  maxOutputTokens?: number;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelResult {
  /** All text of this completion (the concatenation of the deltas). */
  text: string;
  /** Empty when the model gave its final answer. */
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  finishReason: 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';
}

export interface ModelProvider {
  /** `openai`, `anthropic` or `local`. */
  readonly id: string;
  /**
   * Streams one completion; `onText` receives each text delta as it arrives, in order, and
   * `onOutput` the other output the model is billed for as it arrives (tool-call arguments,
   * reasoning), so a call cut short can be billed for what it produced.
   */
  stream(request: ModelRequest, onText: (delta: string) => void, onOutput?: (delta: string) => void): Promise<ModelResult>;
}

/**
 * A classified provider failure. `retryable` failures (429, 5xx, network, malformed stream) are
 * retried by Temporal with backoff; `retryAfterMs` (from `Retry-After`) sets the next delay.
 * Others (400, 401, 403, 404, 422…) end the turn with an `error` event.
 */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
