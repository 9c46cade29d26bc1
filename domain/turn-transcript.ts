/**
 * What the turn workflow carries between steps: this turn's assistant tool requests and the
 * tool results (masked and size-capped), in order. Earlier turns are loaded from PostgreSQL.
 */
export interface TurnRef {
  turnId: string;
}

/** A tool call the model asked for (the model providers' `ModelToolCall` is this type). */
export interface TranscriptToolCall {
  /** The provider's id of this call, echoed back with its result. */
  id: string;
  name: string;
  /** Parsed arguments (a JSON object). */
  args: Record<string, unknown>;
}

/** An item of this turn so far; the model providers' `ModelMessage` is built from these. */
export type TranscriptItem =
  | { role: 'assistant'; content: string; toolCalls: TranscriptToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };
