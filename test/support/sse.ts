import { readSSE } from '../../sdk/src/sse';
import type { TurnEvent } from '../../domain/turn-events';

export interface SeenEvent {
  seq: number;
  event: TurnEvent;
}

/** POSTs or GETs and collects the SSE events of a turn until the stream ends (bounded by `timeoutMs`). */
export async function collectTurn(
  url: string,
  init: { method: 'POST' | 'GET'; apiKey: string; body?: unknown; lastEventId?: number; stopAfter?: number },
  timeoutMs = 30_000,
): Promise<{ status: number; headers: Headers; events: SeenEvent[]; errorBody?: unknown }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no end of stream within ${timeoutMs} ms`)), timeoutMs);
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${init.apiKey}`, accept: 'text/event-stream' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.lastEventId !== undefined) headers['last-event-id'] = String(init.lastEventId);
    const res = await fetch(url, {
      method: init.method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: controller.signal,
    });
    if (!res.ok || !res.body) return { status: res.status, headers: res.headers, events: [], errorBody: await res.json().catch(() => undefined) };
    const events: SeenEvent[] = [];
    for await (const m of readSSE(res.body, controller.signal)) {
      events.push({ seq: Number(m.id), event: JSON.parse(m.data) as TurnEvent });
      if (init.stopAfter !== undefined && events.length >= init.stopAfter) {
        controller.abort();
        break;
      }
    }
    return { status: res.status, headers: res.headers, events };
  } finally {
    clearTimeout(timer);
  }
}

/** What a consumer following the documented rule shows: text appended, `reset` starts over. */
export function shownText(events: ReadonlyArray<{ type: string; text?: string; reset?: true }>): string {
  let text = '';
  for (const e of events) if (e.type === 'text') text = e.reset ? (e.text ?? '') : text + (e.text ?? '');
  return text;
}
