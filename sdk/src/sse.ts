import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One Server-Sent Event: `data` lines joined with `\n`; `id` and `event` when the server sent them. */
export interface SSEMessage {
  /** The event's `id:` field (the service sends the event's sequence number). */
  id?: string;
  /** The event's `event:` field (the service sends the TurnEvent type). */
  event?: string;
  /** All `data:` lines of the event, joined with `\n`. */
  data: string;
}

/**
 * Decodes an SSE byte stream into messages, in order. Comment lines (`: keepalive`) are
 * skipped, multi-line `data` is joined with `\n`, and events may be split across chunks
 * anywhere, even inside a UTF-8 character. An event left incomplete when the stream ends is
 * dropped, as the SSE standard requires.
 *
 * When `signal` aborts, the generator ends without an error. Ending the loop early (`break`)
 * cancels the stream, which closes the underlying request.
 */
export async function* readSSE(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SSEMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SSEMessage[] = [];
  const parser = createParser({ onEvent: (message) => ready.push(toMessage(message)) });
  const stop = () => {
    reader.cancel(signal?.reason).catch(() => undefined);
  };
  signal?.addEventListener('abort', stop, { once: true });
  let finished = false;
  try {
    while (!signal?.aborted) {
      const chunk = await reader.read().catch((error: unknown) => {
        if (signal?.aborted) return undefined; // the read failed because we aborted: end quietly
        throw error;
      });
      if (chunk === undefined) return;
      if (chunk.done) {
        finished = true;
        parser.feed(decoder.decode());
      } else {
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      for (const message of ready.splice(0)) {
        if (signal?.aborted) return;
        yield message;
      }
      if (finished) return;
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function toMessage({ id, event, data }: EventSourceMessage): SSEMessage {
  const message: SSEMessage = { data };
  if (id !== undefined) message.id = id;
  if (event !== undefined) message.event = event;
  return message;
}
