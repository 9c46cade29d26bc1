import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The scriptable core shared by the fake OpenAI and Anthropic servers: a queue of scripted
 * responses (then a default one), a record of every request, and an SSE writer that can pause
 * between chunks, send a malformed chunk, stall, end early or drop the connection.
 * node:http only; listens on 127.0.0.1 on a free port.
 */

export interface ScriptedToolCall {
  /** The call id on the wire; generated when omitted. */
  id?: string;
  name: string;
  /** The arguments; a string is sent verbatim (e.g. broken JSON). */
  args: Record<string, unknown> | string;
}

export interface ScriptedResponse {
  /** Text streamed as content deltas. */
  text?: string;
  /** Characters per text delta; default one word (with its following whitespace) per delta. */
  chunkSize?: number;
  /** Pause before each chunk after the first, in ms (per-token latency for benchmarks). */
  chunkDelayMs?: number;
  /** Tool calls streamed after the text: name (and id) first, then argument fragments. */
  toolCalls?: ScriptedToolCall[];
  /** Characters per tool-argument fragment; default 8. */
  argsChunkSize?: number;
  /** Reported usage (or computed from the request body, as a provider counts it); default estimated as ceil(chars / 4). */
  usage?: ScriptedUsage | ((body: Record<string, unknown>) => ScriptedUsage);
  /** The wire finish/stop reason; default `stop`/`end_turn`, or `tool_calls`/`tool_use` with tool calls. */
  finishReason?: string;
  /** Answer with this HTTP error status instead of a stream. */
  status?: number;
  /** The error message of an error status (or of `errorFrame`). */
  message?: string;
  /** `Retry-After` of an error status: seconds, or an HTTP date string. */
  retryAfter?: number | string;
  /** A chunk that is not JSON after this many text deltas (`true`: after the first). The stream then goes on. */
  malformed?: boolean | number;
  /** A provider error frame (e.g. overloaded) after this many text deltas. */
  errorFrameAfter?: number;
  /** Send this many SSE events (the role/message_start one included), then stall until `close()`. */
  hangAfterChunks?: number;
  /** Send this many SSE events, then end the response cleanly (no finish, no `[DONE]`). */
  truncateAfterChunks?: number;
  /** Send this many SSE events, then destroy the connection. */
  dropAfterChunks?: number;
}

export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The usage a script reports for this request, or `estimated` when it says none. */
export function scriptedUsage(script: ScriptedResponse, body: Record<string, unknown>, estimated: () => ScriptedUsage): ScriptedUsage {
  return typeof script.usage === 'function' ? script.usage(body) : (script.usage ?? estimated());
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body (undefined when it was not JSON). */
  body: unknown;
}

/** What a wire protocol contributes: its route and how a script becomes SSE events. */
export interface Protocol {
  /** Paths served (POST). */
  paths: string[];
  /** The error body of an HTTP error status. */
  errorBody(status: number, message: string): unknown;
  /** The complete stream of the script, as encoded SSE events (`event:…\ndata:…\n\n`). */
  events(script: ScriptedResponse, body: Record<string, unknown>, counter: number): EncodedStream;
  /** Other POST routes answered with one JSON body (e.g. OpenAI's `/v1/embeddings`); a promise may wait first. */
  jsonRoutes?: Record<string, (body: Record<string, unknown>) => JsonAnswer | Promise<JsonAnswer>>;
}

export interface JsonAnswer {
  status: number;
  body: unknown;
}

export interface EncodedStream {
  events: string[];
  /** Index in `events` of the first text delta (where `malformed`/`errorFrameAfter` count from). */
  firstTextIndex: number;
  malformed: string;
  errorFrame: (message: string) => string;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>` (no path). */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Scripts the next responses, in order. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** Answers requests once the queue is empty. */
  defaultResponse: ScriptedResponse;
  /** Number of connections closed by the client while a response was still being written. */
  readonly clientAborts: number;
  close(): Promise<void>;
}

export async function startScriptedServer(protocol: Protocol): Promise<ModelServer> {
  const queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;
  let clientAborts = 0;
  let closing = false;

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '').split('?')[0] ?? '';
    requests.push({ method: req.method ?? '', path, headers: req.headers, body });
    const jsonRoute = req.method === 'POST' ? protocol.jsonRoutes?.[path] : undefined;
    if (jsonRoute) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return sendJson(res, 400, protocol.errorBody(400, 'the body must be a JSON object'));
      void Promise.resolve(jsonRoute(body as Record<string, unknown>)).then(
        (answer) => sendJson(res, answer.status, answer.body),
        (e: unknown) => sendJson(res, 500, protocol.errorBody(500, String(e))),
      );
      return;
    }
    if (req.method !== 'POST' || !protocol.paths.includes(path)) {
      return sendJson(res, 404, protocol.errorBody(404, `no route ${req.method} ${path}`));
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return sendJson(res, 400, protocol.errorBody(400, 'the body must be a JSON object'));
    }
    const record = body as Record<string, unknown>;
    if (record.stream !== true) {
      return sendJson(res, 400, protocol.errorBody(400, 'this test server only answers stream: true'));
    }
    const script = queue.shift() ?? server.defaultResponse;
    if (script.status !== undefined) {
      const headers: Record<string, string> = {};
      if (script.retryAfter !== undefined) headers['retry-after'] = String(script.retryAfter);
      return sendJson(res, script.status, protocol.errorBody(script.status, script.message ?? `scripted ${script.status}`), headers);
    }
    stream(res, script, protocol.events(script, record, ++counter));
  };

  const stream = (res: ServerResponse, script: ScriptedResponse, encoded: EncodedStream) => {
    const events = [...encoded.events];
    if (script.errorFrameAfter !== undefined) {
      events.splice(encoded.firstTextIndex + script.errorFrameAfter, 0, encoded.errorFrame(script.message ?? 'Overloaded'));
    }
    if (script.malformed !== undefined && script.malformed !== false) {
      const after = script.malformed === true ? 1 : script.malformed;
      events.splice(encoded.firstTextIndex + after, 0, encoded.malformed);
    }
    const stopAt = script.hangAfterChunks ?? script.truncateAfterChunks ?? script.dropAfterChunks;
    const toSend = stopAt === undefined ? events : events.slice(0, stopAt);
    let finished = false;
    const finish = () => {
      if (script.hangAfterChunks !== undefined) return; // stall: close() ends it
      if (script.dropAfterChunks !== undefined) {
        finished = true;
        // after what was written has reached the client
        return void res.write('', () => res.socket?.destroy());
      }
      res.end();
    };
    res.on('close', () => {
      if (!finished && !closing) clientAborts++;
    });
    res.on('finish', () => {
      finished = true;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const delay = script.chunkDelayMs ?? 0;
    if (delay <= 0) {
      res.write(toSend.join(''));
      return finish();
    }
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      res.write(toSend[i++] ?? '');
      if (i >= toSend.length) return finish();
      const timer = setTimeout(() => {
        timers.delete(timer);
        next();
      }, delay);
      timers.add(timer);
    };
    next();
  };

  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  const server: ModelServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    defaultResponse: { text: 'OK' },
    get clientAborts() {
      return clientAborts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
  return server;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The script's text deltas: `chunkSize` characters each, or one word with its following whitespace. */
export function textChunks(script: ScriptedResponse): string[] {
  const text = script.text ?? '';
  if (text === '') return [];
  const size = script.chunkSize;
  if (size !== undefined && size > 0) {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
    return out;
  }
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

/** The tool call's argument text, cut into fragments. */
export function argumentFragments(call: ScriptedToolCall, size = 8): { text: string; fragments: string[] } {
  const text = typeof call.args === 'string' ? call.args : JSON.stringify(call.args);
  const fragments: string[] = [];
  for (let i = 0; i < text.length; i += size) fragments.push(text.slice(i, i + size));
  return { text, fragments };
}

/** ceil(chars / 4), like the offline model's estimate. */
export function estimate(chars: number): number {
  return Math.ceil(chars / 4);
}
