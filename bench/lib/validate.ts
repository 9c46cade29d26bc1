import type { StreamedTurnEvent } from '../../harness/sse';

/** One SSE event of a turn stream as received: the `id:` and `event:` fields and the parsed data. */
export type ReceivedEvent = StreamedTurnEvent;

export type StreamProblem =
  /** The turn ended with an `error` event. */
  | { kind: 'error_event'; message: string }
  /** A lost, duplicated, reordered or malformed event, or text that does not add up. */
  | { kind: 'invalid'; message: string };

/**
 * Checks one complete turn stream: seq is exactly 1, 2, 3… with no gap; `event:` names the data's
 * type; it opens with `start` for this turn; exactly one terminal event, and it is the last; no
 * `reset`; the concatenated text equals `done.reply` equals the model's fixed reply.
 */
export function checkTurnStream(events: readonly ReceivedEvent[], expected: { turnId: string | null; reply: string }): StreamProblem | undefined {
  const invalid = (message: string): StreamProblem => ({ kind: 'invalid', message });
  for (const [i, e] of events.entries()) {
    if (e.id !== String(i + 1)) return invalid(`event #${i + 1} has id ${JSON.stringify(e.id)} (lost or reordered events)`);
    if (e.type !== e.data.type) return invalid(`event ${e.id}: event field ${JSON.stringify(e.type)} but data type ${e.data.type}`);
  }
  const first = events[0]?.data;
  if (first?.type !== 'start') return invalid(`the stream does not open with start (got ${first?.type ?? 'nothing'})`);
  if (expected.turnId !== null && first.turnId !== expected.turnId) return invalid(`start names turn ${first.turnId}, X-Turn-Id is ${expected.turnId}`);
  const terminals = events.filter((e) => e.data.type === 'done' || e.data.type === 'error');
  if (terminals.length !== 1) return invalid(`${terminals.length} terminal events`);
  const last = events[events.length - 1]!.data;
  if (last.type !== 'done' && last.type !== 'error') return invalid(`events after the terminal event (last is ${last.type})`);
  if (last.type === 'error') return { kind: 'error_event', message: last.message };
  let text = '';
  for (const { data } of events) {
    if (data.type !== 'text') continue;
    if (data.reset) return invalid('a text event with reset (a retried model call)');
    text += data.text;
  }
  if (text !== last.reply) return invalid(`streamed text ${JSON.stringify(text)} differs from done.reply ${JSON.stringify(last.reply)}`);
  if (last.reply !== expected.reply) return invalid(`done.reply ${JSON.stringify(last.reply)} differs from the model's reply`);
  return undefined;
}
