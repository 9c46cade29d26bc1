/**
 * The MCP reference "everything" server (`@modelcontextprotocol/server-everything`) as a child
 * process for tests, plus two tiny local HTTP servers: a header-recording proxy and a server that
 * accepts connections and never answers.
 *
 * The everything server is started as `node <pkg>/dist/index.js <streamableHttp|sse>` with env
 * `PORT`; it serves Streamable HTTP at `/mcp` and HTTP+SSE at `/sse` (+ `POST /message`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

export type EverythingTransport = 'http' | 'sse';

export interface EverythingServer {
  transport: EverythingTransport;
  port: number;
  /** The MCP endpoint: `/mcp` (Streamable HTTP) or `/sse`. */
  url: string;
  /** The child's recent output, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const START_WAIT_MS = 15_000;
const STOP_WAIT_MS = 3_000;
const OUTPUT_TAIL = 8_000;

const bin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

/** A port that was free a moment ago (bound on 127.0.0.1, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no port'))));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function stopChild(child: ChildProcess): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
    const give = setTimeout(resolve, STOP_WAIT_MS * 2);
    child.once('exit', () => {
      clearTimeout(kill);
      clearTimeout(give);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function startOnce(transport: EverythingTransport, env: Record<string, string>): Promise<EverythingServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, transport === 'http' ? 'streamableHttp' : 'sse'], {
    // A small environment: the server's `get-env` tool prints all of it.
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const server: EverythingServer = {
    transport,
    port,
    url: `http://127.0.0.1:${port}${transport === 'http' ? '/mcp' : '/sse'}`,
    output: () => tail,
    stop: () => stopChild(child),
  };
  const until = Date.now() + START_WAIT_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) {
      running.delete(child);
      throw new Error(`everything server (${transport}) exited early (${child.exitCode ?? child.signalCode}):\n${tail}`);
    }
    if (await canConnect(port)) return server;
    await sleep(100);
  }
  await server.stop();
  throw new Error(`everything server (${transport}) did not listen on ${port} within ${START_WAIT_MS} ms:\n${tail}`);
}

/** Starts the everything server with `transport` on a free port; resolves once it accepts connections. */
export async function startEverything(transport: EverythingTransport, env: Record<string, string> = {}): Promise<EverythingServer> {
  let last: unknown;
  // A free port can be taken between finding and binding it: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(transport, env);
    } catch (err) {
      last = err;
    }
  }
  throw last instanceof Error ? last : new Error(String(last));
}

export interface LocalServer {
  port: number;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  close(): Promise<void>;
}

function listen(server: http.Server | net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

export interface RecordingProxy extends LocalServer {
  /** The headers of every request received, in order (lower-case names). */
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }>;
}

/** Forwards every request to `target` (streaming both ways) and records the request headers. */
export async function startRecordingProxy(targetPort: number): Promise<RecordingProxy> {
  const requests: RecordingProxy['requests'] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers } });
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${targetPort}` } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listen(server);
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => closeServer(server, sockets),
  };
}

/** Accepts TCP connections and never answers: a server that hangs. */
export async function startSilentServer(): Promise<LocalServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listen(server);
  return { port, origin: `http://127.0.0.1:${port}`, close: () => closeServer(server, sockets) };
}

function closeServer(server: http.Server | net.Server, sockets: Set<net.Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((resolve) => {
    const give = setTimeout(resolve, STOP_WAIT_MS);
    server.close(() => {
      clearTimeout(give);
      resolve();
    });
  });
}
