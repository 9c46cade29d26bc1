import { openTurnStream, turnEvents } from '../../harness/sse';
import { readSSE } from '../../sdk/src/sse';
import { checkTurnStream, type ReceivedEvent, type StreamProblem } from './validate';

/**
 * The two timed clients: a turn through the service (POST …/turns, read the SSE stream to its
 * end), and the same model request sent straight to the model server. Both parse SSE with the
 * SDK's reader and time from just before `fetch` to the first text.
 */

type TurnFailure = StreamProblem | { kind: 'http'; message: string } | { kind: 'exception'; message: string };

export interface TurnResult {
  /** X-Turn-Id of the answer. */
  turnId: string | null;
  /** When the request was sent, epoch ms (sub-millisecond). */
  requestAt: number;
  /** Request → first `text` event, ms. */
  firstTextMs: number | undefined;
  /** Request → end of stream, ms. */
  totalMs: number;
  events: number;
  failure: TurnFailure | undefined;
}

export async function askTurn(opts: {
  baseURL: string;
  apiKey: string;
  conversationId: string;
  text: string;
  reply: string;
  timeoutMs: number;
}): Promise<TurnResult> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const started = performance.now();
  const requestAt = performance.timeOrigin + started;
  let turnId: string | null = null;
  let firstTextMs: number | undefined;
  const events: ReceivedEvent[] = [];
  try {
    const res = await openTurnStream(`${opts.baseURL}/v1/conversations/${opts.conversationId}/turns`, {
      method: 'POST',
      apiKey: opts.apiKey,
      body: { text: opts.text },
      signal,
    });
    turnId = res.headers.get('x-turn-id');
    if (res.status !== 200 || !res.body) {
      const body = await res.text().catch(() => '');
      return { turnId, requestAt, firstTextMs, totalMs: performance.now() - started, events: 0, failure: { kind: 'http', message: `HTTP ${res.status} ${body.slice(0, 300)}` } };
    }
    for await (const e of turnEvents(res.body, signal)) {
      if (e.data.type === 'text' && firstTextMs === undefined) firstTextMs = performance.now() - started;
      events.push(e);
    }
    if (signal.aborted) throw new Error(`no end of stream within ${opts.timeoutMs} ms (${events.length} events)`);
    const totalMs = performance.now() - started;
    return { turnId, requestAt, firstTextMs, totalMs, events: events.length, failure: checkTurnStream(events, { turnId, reply: opts.reply }) };
  } catch (e) {
    return { turnId, requestAt, firstTextMs, totalMs: performance.now() - started, events: events.length, failure: { kind: 'exception', message: e instanceof Error ? e.message : String(e) } };
  }
}

/** Sends `body` (a recorded Chat Completions request of the service) to the model server; ms to the first content delta. */
export async function directFirstDelta(opts: { modelURL: string; body: unknown; reply: string; timeoutMs: number }): Promise<number> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const started = performance.now();
  const res = await fetch(`${opts.modelURL}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-bench', accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify(opts.body),
    signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`model server answered HTTP ${res.status}`);
  let first: number | undefined;
  let text = '';
  for await (const m of readSSE(res.body, signal)) {
    if (m.data === '[DONE]') continue;
    const chunk = JSON.parse(m.data) as { choices?: Array<{ delta?: { content?: string | null } }> };
    const content = chunk.choices?.[0]?.delta?.content;
    if (content) {
      first ??= performance.now() - started;
      text += content;
    }
  }
  if (first === undefined || text !== opts.reply) throw new Error(`direct stream ended with ${JSON.stringify(text)}, not the fixed reply`);
  return first;
}
