import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { customSearchAttributes } from '../domain/runs/search-attributes';
import { ensureSearchAttributes } from './search-attributes';
import { namespaceAnswers } from './temporal-connection';

/**
 * Runs `temporal server start-dev` as a child process: the embedded default when no
 * TEMPORAL_ADDRESS is set, and the real server behind every integration test.
 */
interface DevServerOptions {
  cliPath: string;
  port: number;
  uiPort: number;
  /** SQLite file that keeps history across restarts; omit for an in-memory server. */
  dbFile?: string;
  namespace: string;
  log: (line: string) => void;
  readyTimeoutMs?: number;
  /** The codec endpoint the UI's browser calls to show payloads decoded (`start`: the API's `/v1/codec`). */
  uiCodecEndpoint?: string;
}

export interface DevServerHandle {
  address: string;
  uiURL: string;
  stop(): Promise<void>;
}

/** A TCP port the OS reports free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startTemporalDevServer(opts: DevServerOptions): Promise<DevServerHandle> {
  const address = `127.0.0.1:${opts.port}`;
  // The HTTP API and metrics ports default to fixed numbers; pick free ones so two servers coexist.
  const [httpPort, metricsPort] = [await freePort(), await freePort()];
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(opts.port),
    '--http-port', String(httpPort),
    '--metrics-port', String(metricsPort),
    '--ui-port', String(opts.uiPort),
    '--namespace', opts.namespace,
    '--log-level', 'warn',
    // A worker that completes a workflow task gets the activity it scheduled in the same answer,
    // saving a poll round trip per step (set the same on a production cluster).
    '--dynamic-config-value', 'system.enableActivityEagerExecution=true',
    ...(opts.dbFile ? ['--db-filename', opts.dbFile] : []),
    ...(opts.uiCodecEndpoint ? ['--ui-codec-endpoint', opts.uiCodecEndpoint] : []),
    ...customSearchAttributes.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]),
  ];
  // Its own process group: a Ctrl-C or a supervisor's SIGTERM to our group reaches us, and we stop
  // the server only after the API and workers have drained.
  const child = spawn(opts.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  while (true) {
    if (exited) throw new Error(`temporal dev server exited during start-up:\n${output}`);
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`temporal dev server did not answer on ${address} in time:\n${output}`);
    }
    if (await namespaceAnswers(address, opts.namespace)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // The flags register attributes only in a new history file: add what a later release added.
  if (opts.dbFile) await registerSearchAttributes(address, opts.namespace);
  return {
    address,
    // localhost, not 127.0.0.1: the UI's origin is what npm start lets call the codec (CODEC_CORS_ORIGIN).
    uiURL: `http://localhost:${opts.uiPort}`,
    stop: () => stopChild(child),
  };
}

async function registerSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await ensureSearchAttributes(connection, namespace);
  } finally {
    await connection.close();
  }
}

/** SIGTERM, then SIGKILL after 10 s; resolves when the process is gone. */
function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
