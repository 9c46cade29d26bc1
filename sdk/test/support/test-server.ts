import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Service, ServiceError } from '../../src';

/** Test helpers for the SDK: a real local HTTP server standing in for the service. */

/** One request as the fake service saw it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body decoded as UTF-8. */
  body: string;
  /** The body as received. */
  bytes: Buffer;
}

/** Answers one request; called after its body has been read. */
export type Handler = (req: IncomingMessage, res: ServerResponse, received: Received) => void;

/** A real HTTP server on 127.0.0.1 that records every request, for SDK tests. */
export interface TestServer {
  baseURL: string;
  received: Received[];
  /** Sets how the following requests are answered. */
  respond(handler: Handler): void;
  close(): Promise<void>;
}

export async function startTestServer(): Promise<TestServer> {
  const received: Received[] = [];
  let handler: Handler = (_req, res) => json(res, 200, {});
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: bytes.toString('utf8'), bytes };
      received.push(entry);
      handler(req, res, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    received,
    respond: (next) => {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves when the client side of a request has gone away before the answer was finished. */
export function clientGone(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => res.on('close', () => resolve(!res.writableFinished)));
}

/** Rejects the test with a clear message if `promise` does not settle within `ms`. */
export function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** Awaits a call that must fail and returns its ServiceError. */
export async function failure(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`);
    return error;
  }
  assert.fail('the call succeeded');
}

/** Starts a `text/event-stream` answer, as the service does for a turn. */
export function openEventStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

/** One turn event in the service's wire format: `id: <seq>`, `event: <type>`, `data: <JSON>`. */
export function sseEvent(seq: number, event: { type: string } & Record<string, unknown>): string {
  return `id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The wire form of events[from - 1 .. to - 1] (sequence numbers `from` to `to`, inclusive). */
export function sseEvents(events: ReadonlyArray<{ type: string } & Record<string, unknown>>, from: number, to = events.length): string {
  let out = '';
  for (let seq = from; seq <= to; seq++) out += sseEvent(seq, events[seq - 1]!);
  return out;
}

/** Every event a turn yields, in order. */
export async function collectEvents<E>(turn: AsyncIterable<E>): Promise<E[]> {
  const out: E[] = [];
  for await (const event of turn) out.push(event);
  return out;
}

/** Writes `data`, then cuts the connection without ending the answer (a dropped stream). */
export function writeThenDrop(res: ServerResponse, data = ''): void {
  if (data === '') {
    res.socket?.destroy();
    return;
  }
  res.write(data, () => res.socket?.destroy());
}

/**
 * Mocha hooks for a suite of SDK calls against one local server: it starts before the suite
 * (handing the server and a client on it to `ready`), each test begins with no recorded requests
 * and `handler` answering, and it closes after the suite.
 */
export function useSdkServer(handler: Handler, ready: (server: TestServer, ws: Service) => void): void {
  let server: TestServer | undefined;
  before(async () => {
    server = await startTestServer();
    ready(server, new Service({ apiKey: 'k', baseURL: server.baseURL }));
  });
  beforeEach(() => {
    server!.received.length = 0;
    server!.respond(handler);
  });
  after(() => server?.close());
}
