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

/**
 * The most a turn's transcript may weigh as JSON (UTF-8 bytes). It travels as the input of every
 * model step, and Temporal refuses a payload over 2 MB (and warns from 512 KB); 1 MiB leaves room
 * for the rest of the step's input and for the encryption envelope.
 */
const TRANSCRIPT_BUDGET_BYTES = 1024 * 1024;

/** UTF-8 length of a string, without Buffer (this module runs inside the workflow sandbox). */
function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The text left in place of `content`, or `content` itself when the note would not be shorter. */
const trimmed = (content: string) => {
  if (content.startsWith('[trimmed: ')) return content; // trimmed by an earlier step
  const note = `[trimmed: ${content.length} characters left out to keep this turn within its size budget]`;
  return note.length < content.length ? note : content;
};

/**
 * Keeps `transcript` (in place) within `budget` bytes of JSON: the oldest items' content (tool
 * results first in order of age, and the assistant text and tool-call arguments with them) is
 * replaced by a short note until it fits. The newest items are the ones the model needs to go on;
 * the note tells it something was there. Deterministic: only the transcript decides.
 */
export function boundTranscript(transcript: TranscriptItem[], budget = TRANSCRIPT_BUDGET_BYTES): void {
  let size = utf8Bytes(JSON.stringify(transcript));
  for (let i = 0; i < transcript.length && size > budget; i++) {
    const item = transcript[i] as TranscriptItem;
    const before = utf8Bytes(JSON.stringify(item));
    if (item.role === 'assistant') {
      transcript[i] = { ...item, content: trimmed(item.content), toolCalls: item.toolCalls.map((c) => ({ ...c, args: {} })) };
    } else {
      transcript[i] = { ...item, content: trimmed(item.content) };
    }
    size += utf8Bytes(JSON.stringify(transcript[i])) - before;
  }
}
