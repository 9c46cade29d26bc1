import type { TurnEvent } from '../domain/turn-events';
import { readSSE } from '../sdk/src/sse';

/**
 * A turn's event stream as a client of the API reads it: POST …/conversations/:id/turns with a
 * body, or GET …/turns/:id/events (after `lastEventId` when given).
 */
export function openTurnStream(
  url: string,
  init: { method: 'POST' | 'GET'; apiKey: string; body?: unknown; lastEventId?: number; signal: AbortSignal },
): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${init.apiKey}`, accept: 'text/event-stream' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.lastEventId !== undefined) headers['last-event-id'] = String(init.lastEventId);
  return fetch(url, { method: init.method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: init.signal });
}

/** One event of a turn's stream: its `id:` (the sequence number), its `event:` name and its data. */
export interface StreamedTurnEvent {
  id: string | undefined;
  type: string | undefined;
  data: TurnEvent;
}

/** The events of a turn's stream as they arrive, read with the SDK's SSE reader. */
export async function* turnEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<StreamedTurnEvent> {
  for await (const m of readSSE(body, signal)) yield { id: m.id, type: m.event, data: JSON.parse(m.data) as TurnEvent };
}
