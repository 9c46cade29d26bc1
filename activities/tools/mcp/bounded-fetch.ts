/**
 * The fetch an MCP session hands the SDK, with every answer read within a bound. The SDK's
 * transports read a JSON answer whole (`response.json()`) and an event stream event by event,
 * with no limit: a hostile or broken server could send a 2 GB tool result, or a small gzip that
 * inflates to one, and exhaust the worker's heap. Here each response body is counted as the SDK
 * reads it (after fetch has decompressed it) and errors past the bound, which cancels the
 * download; `refused` then aborts, so the pending request ends with that reason at once instead of
 * waiting for its timeout (an event stream that errors only reconnects, and the answer never comes).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SseEventMeter } from '../../outbound/sse-event-meter';
import { toolLimits } from '../limits';

/** An MCP server's answer went past a bound; the rest was not read. */
class McpAnswerTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpAnswerTooLarge';
  }
}

interface BoundedFetch {
  fetch: FetchLike;
  /** Aborts, with an McpAnswerTooLarge as its reason, when an answer goes past a bound. */
  refused: AbortSignal;
}

const mib = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`);

/** Statuses whose response may not carry a body (the Response constructor refuses one). */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * `base`, its response bodies bounded for one session: one JSON-RPC message (a JSON body, or one
 * event of an event stream) at most `toolLimits.mcpMessageBytes`, all responses together at most
 * `toolLimits.mcpSessionBytes`.
 */
export function boundedMcpFetch(base: FetchLike): BoundedFetch {
  const { mcpMessageBytes, mcpSessionBytes } = toolLimits;
  const refusal = new AbortController();
  let sessionBytes = 0;
  const refuse = (message: string): McpAnswerTooLarge => {
    const error = new McpAnswerTooLarge(message);
    if (!refusal.signal.aborted) refusal.abort(error);
    return error;
  };

  const fetch: FetchLike = async (url, init) => {
    const response = await base(url, init);
    if (response.body === null || NULL_BODY.has(response.status)) return response;
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    // An event stream carries many messages: each event is one; any other body is one message.
    const events = mediaType === 'text/event-stream' ? new SseEventMeter() : undefined;
    let bodyBytes = 0;
    const counted = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bodyBytes += chunk.byteLength;
        sessionBytes += chunk.byteLength;
        const message = events ? events.feed(chunk) : bodyBytes;
        if (message > mcpMessageBytes) {
          controller.error(refuse(`the server sent a message larger than ${mib(mcpMessageBytes)}, the most one MCP message may be; it was not read`));
        } else if (sessionBytes > mcpSessionBytes) {
          controller.error(refuse(`the server sent more than ${mib(mcpSessionBytes)}, the most one MCP listing or call may read; the rest was not read`));
        } else {
          controller.enqueue(chunk);
        }
      },
    });
    // Erroring the transform cancels the original body: the connection is closed, nothing more is downloaded.
    const bounded = new Response(response.body.pipeThrough(counted), { status: response.status, statusText: response.statusText, headers: response.headers });
    // The SDK names an unfollowed redirect's target from `url`, which a constructed Response lacks.
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };

  return { fetch, refused: refusal.signal };
}
