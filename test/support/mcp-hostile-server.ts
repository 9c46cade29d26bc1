/**
 * A hostile MCP server, run as its own process by mcp-hostile.ts (so what it holds is not counted
 * in the test's memory). It speaks just enough MCP to be connected to — `initialize`, `tools/list`,
 * `tools/call` with one tool, `dump` — over Streamable HTTP at `/<mode>` and over HTTP+SSE at
 * `/sse/<mode>` (+ `POST /message/<mode>?session=N`; there only `huge-sse` is hostile, on the GET
 * stream), and answers by `mode`:
 *
 * - `huge-json`: a `dump` result of `HUGE_BYTES` text as one JSON body, streamed as it is written.
 * - `huge-sse`: the same result as one event of an event stream (over HTTP+SSE: on the GET stream).
 * - `flood-sse`: an event stream of 16 KiB log notifications that never ends, and no result.
 * - `gzip-json`: the result of `BOMB_INFLATED_BYTES` text as a JSON body with `Content-Encoding:
 *   gzip`, about 1 KiB per inflated MiB on the wire.
 * - `huge-list`: a `tools/list` answer of `HUGE_BYTES`.
 * - `fine`: a `dump` result of `FINE_BYTES` text, gzip-encoded (what a legitimate server may send).
 *
 * Bodies are written with backpressure and stop when the client goes away. `GET /stats` answers,
 * per mode, how many bytes the last streamed answer wrote before it stopped. Prints `LISTENING
 * <port>` once it listens on 127.0.0.1.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';

const MiB = 1024 * 1024;
const HUGE_BYTES = 300 * MiB;
const BOMB_INFLATED_BYTES = 1024 * MiB;
const FINE_BYTES = 3 * MiB;
const PROTOCOL = '2025-06-18';

type Mode = 'huge-json' | 'huge-sse' | 'flood-sse' | 'gzip-json' | 'huge-list' | 'fine';
const MODES: readonly string[] = ['huge-json', 'huge-sse', 'flood-sse', 'gzip-json', 'huge-list', 'fine'] satisfies Mode[];

interface JsonRpc {
  id?: number | string;
  method?: string;
  params?: { protocolVersion?: string };
}

const stats: Record<string, number> = {};
const X = Buffer.alloc(64 * 1024, 'x');
/** One gzip member that inflates to 1 MiB of `x`: members may follow each other in one gzip stream. */
const X_MEMBER = gzipSync(Buffer.alloc(MiB, 'x'), { level: 9 });

/** Writes `chunks` with backpressure until they end or the client goes away; counts what was written. */
async function pump(res: http.ServerResponse, chunks: Iterable<Buffer | string>, statKey: string): Promise<void> {
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  stats[statKey] = 0;
  for (const chunk of chunks) {
    if (gone) return;
    stats[statKey] += Buffer.byteLength(chunk);
    if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  if (!gone) res.end();
}

function* xs(bytes: number): Generator<Buffer> {
  for (let sent = 0; sent < bytes; sent += X.length) yield bytes - sent >= X.length ? X : X.subarray(0, bytes - sent);
}

/** `{"jsonrpc":"2.0","id":…,"result":{"content":[{"type":"text","text":"` and its end, around the text. */
function resultAround(id: JsonRpc['id']): [string, string] {
  return [`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`, '"}]}}'];
}

function* hugeResult(id: JsonRpc['id'], bytes: number): Generator<Buffer | string> {
  const [head, tail] = resultAround(id);
  yield head;
  yield* xs(bytes);
  yield tail;
}

function* gzipBomb(id: JsonRpc['id']): Generator<Buffer> {
  const [head, tail] = resultAround(id);
  yield gzipSync(head);
  for (let i = 0; i < BOMB_INFLATED_BYTES / MiB; i++) yield X_MEMBER;
  yield gzipSync(tail);
}

function* floodEvents(): Generator<string> {
  const line = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(16 * 1024) } })}\n\n`;
  for (;;) yield line;
}

function small(id: JsonRpc['id'], result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

const TOOLS = { tools: [{ name: 'dump', description: 'Answers too much', inputSchema: { type: 'object', properties: {} } }] };

function initializeResult(request: JsonRpc): unknown {
  return { protocolVersion: request.params?.protocolVersion ?? PROTOCOL, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } };
}

/** The answer to anything but a hostile `tools/call` or `tools/list`: one JSON-RPC message. */
function smallAnswer(request: JsonRpc): string {
  if (request.method === 'initialize') return small(request.id, initializeResult(request));
  if (request.method === 'tools/list') return small(request.id, TOOLS);
  if (request.method === 'tools/call') return small(request.id, { content: [{ type: 'text', text: 'fine' }] });
  return JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'no such method' } });
}

/** The Streamable HTTP answer to one request, as chunks to write after `headers`. */
function answer(mode: Mode, request: JsonRpc): { headers: Record<string, string>; chunks: Iterable<Buffer | string> } {
  const json = { 'content-type': 'application/json' };
  if (request.method === 'tools/list' && mode === 'huge-list') {
    const tools = (function* () {
      yield `{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"tools":[{"name":"dump","inputSchema":{"type":"object"},"description":"`;
      yield* xs(HUGE_BYTES);
      yield '"}]}}';
    })();
    return { headers: json, chunks: tools };
  }
  if (request.method !== 'tools/call') return { headers: json, chunks: [smallAnswer(request)] };
  switch (mode) {
    case 'huge-json':
      return { headers: json, chunks: hugeResult(request.id, HUGE_BYTES) };
    case 'huge-sse':
      return { headers: { 'content-type': 'text/event-stream' }, chunks: sseOf(hugeResult(request.id, HUGE_BYTES)) };
    case 'flood-sse':
      return { headers: { 'content-type': 'text/event-stream' }, chunks: floodEvents() };
    case 'gzip-json':
      return { headers: { ...json, 'content-encoding': 'gzip' }, chunks: gzipBomb(request.id) };
    default:
      return { headers: { ...json, 'content-encoding': 'gzip' }, chunks: [gzipSync(Buffer.concat([...hugeResult(request.id, FINE_BYTES)].map((c) => Buffer.from(c))))] };
  }
}

/** One event of an event stream around `data` chunks (which hold no line end). */
function* sseOf(data: Iterable<Buffer | string>): Generator<Buffer | string> {
  yield 'event: message\ndata: ';
  yield* data;
  yield '\n\n';
}

async function body(req: http.IncomingMessage): Promise<JsonRpc> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpc;
}

/** HTTP+SSE sessions: the open GET stream of each. */
const streams = new Map<string, http.ServerResponse>();
let sessions = 0;

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const parts = url.pathname.split('/').filter(Boolean);
  if (url.pathname === '/stats') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));

  // HTTP+SSE: GET /sse/<mode> opens the stream; POST /message/<mode>?session=N sends, answers come on the stream.
  if (parts[0] === 'sse' && req.method === 'GET' && MODES.includes(parts[1] ?? '')) {
    const session = String(++sessions);
    streams.set(session, res);
    res.once('close', () => streams.delete(session));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`event: endpoint\ndata: /message/${parts[1]}?session=${session}\n\n`);
    return;
  }
  if (parts[0] === 'message' && req.method === 'POST' && MODES.includes(parts[1] ?? '')) {
    const request = await body(req);
    const stream = streams.get(url.searchParams.get('session') ?? '');
    res.writeHead(stream ? 202 : 404).end();
    if (!stream || request.id === undefined) return;
    const mode = parts[1] as Mode;
    if (request.method === 'tools/call' && mode === 'huge-sse') return pump(stream, sseOf(hugeResult(request.id, HUGE_BYTES)), 'sse:huge-sse');
    stream.write(`event: message\ndata: ${smallAnswer(request)}\n\n`);
    return;
  }

  // Streamable HTTP at /<mode>.
  const mode = parts[0];
  if (parts.length !== 1 || mode === undefined || !MODES.includes(mode)) return void res.writeHead(404).end();
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
  const request = await body(req);
  if (request.id === undefined) return void res.writeHead(202).end();
  const { headers, chunks } = answer(mode as Mode, request);
  res.writeHead(200, { ...headers, ...(request.method === 'initialize' ? { 'mcp-session-id': 'hostile-session' } : {}) });
  await pump(res, chunks, mode);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    process.stderr.write(`hostile server: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`LISTENING ${typeof address === 'object' && address ? address.port : 0}\n`);
});
