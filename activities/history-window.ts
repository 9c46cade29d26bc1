import type { AttachmentRef, MessageRow } from '../db/repositories/conversations';

/**
 * Which earlier messages a model step sends (docs/http-api.md: Conversations and turns, "Bounded history").
 * A step sends the system prompt, the newest messages of the conversation that fit the grade's
 * token budget, and this turn's tool calls and results. Older messages are dropped, never
 * summarised (a summary would be a model call of its own, billed and slow); the first message
 * kept then opens with a note saying how many were left out, so the model knows it sees a window.
 *
 * Tokens are estimated as characters / 4, not counted with the tokenizer: the claim statement loads
 * the window by characters in PostgreSQL, and the estimate only has to keep the request well inside
 * the model's context, not count exactly.
 */

const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Characters of `tokens` estimated tokens: how much message text a step may load. */
export function charsOfTokens(tokens: number): number {
  return tokens * CHARS_PER_TOKEN;
}

/** The text an attachment stands for once it is not sent as bytes. */
export function attachmentNote(ref: AttachmentRef, earlier: boolean): string {
  const what = ref.kind === 'image' ? 'an image' : 'a file';
  return `[The user ${earlier ? 'earlier ' : ''}attached ${what}, saved in the conversation drive at ${ref.path} (${ref.mimeType}).]`;
}

/** What a row weighs in the window: its text and the notes of its attachments. */
function rowChars(row: MessageRow): number {
  return row.content.length + (row.attachments ?? []).reduce((n, a) => n + attachmentNote(a, true).length, 0);
}

export interface HistoryWindow {
  /** The rows to send, oldest first; the first is a user message. */
  rows: MessageRow[];
  /** How many earlier messages of the conversation are not sent. */
  dropped: number;
}

/**
 * The newest rows that fit `budgetChars`, oldest first. `rows` are the newest rows of the
 * conversation (oldest first, as loaded), `total` how many the conversation has. The newest row
 * (this turn's user message) is always kept, whatever its size. The window starts at a user
 * message: providers expect the conversation to open with one.
 */
export function historyWindow(rows: MessageRow[], total: number, budgetChars: number): HistoryWindow {
  let start = rows.length;
  let used = 0;
  while (start > 0) {
    const size = rowChars(rows[start - 1]!);
    if (start < rows.length && used + size > budgetChars) break;
    used += size;
    start--;
  }
  while (start < rows.length - 1 && rows[start]!.role !== 'user') start++;
  const kept = rows.slice(start);
  return { rows: kept, dropped: total - kept.length };
}

export function droppedNote(dropped: number): string {
  return `[${dropped} earlier message${dropped === 1 ? '' : 's'} of this conversation are not shown: they exceed the context budget.]`;
}
