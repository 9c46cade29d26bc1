import assert from 'node:assert/strict';
import { readSSE } from '../../sdk/src/sse';
import type { TurnEvent } from '../../domain/turn-events';
import { openTurnStream, turnEvents } from '../../harness/sse';

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
    const res = await openTurnStream(url, { ...init, signal: controller.signal });
    if (!res.ok || !res.body) return { status: res.status, headers: res.headers, events: [], errorBody: await res.json().catch(() => undefined) };
    const events: SeenEvent[] = [];
    for await (const e of turnEvents(res.body, controller.signal)) {
      events.push({ seq: Number(e.id), event: e.data });
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

/** One SSE frame of a turn's stream, as it arrived. */
export interface TurnFrame {
  seq: number;
  type: string;
  data: string;
}

/** A client following `GET /v1/turns/:id/events`: every frame as it arrives, and whether the stream ended. */
export interface TurnFollower {
  turnId: string;
  frames: TurnFrame[];
  ended: boolean;
  close(): void;
}

/** Follows a turn's stream in the background until it ends or `close()` is called. */
export async function followTurnEvents(baseURL: string, apiKey: string, turnId: string): Promise<TurnFollower> {
  const controller = new AbortController();
  const res = await fetch(`${baseURL}/v1/turns/${turnId}/events`, { headers: { authorization: `Bearer ${apiKey}` }, signal: controller.signal });
  assert.equal(res.status, 200);
  assert.ok(res.body);
  const f: TurnFollower = { turnId, frames: [], ended: false, close: () => controller.abort() };
  const body = res.body;
  void (async () => {
    for await (const m of readSSE(body, controller.signal)) f.frames.push({ seq: Number(m.id), type: m.event ?? '', data: m.data });
    f.ended = true;
  })().catch(() => undefined); // aborting at the end of the test ends the read
  return f;
}
