/**
 * What the turn workflow carries between steps: this turn's assistant tool requests and the
 * tool results (masked and size-capped), in order. Earlier turns are loaded from PostgreSQL.
 */
export interface TurnRef {
  turnId: string;
}

export interface TranscriptToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export type TranscriptItem =
  | { role: 'assistant'; content: string; toolCalls: TranscriptToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };
