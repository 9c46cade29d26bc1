import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../infra/temporal-dev-server';
import { waitFor } from './wait';

/** Debian's HAProxy (`apt-get install haproxy`; .ci/run installs it). */
const HAPROXY = process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy';

/** A TCP pass-through route: HAProxy listens on `port` and forwards to `target` with a PROXY header of `version`. */
interface Route {
  port: number;
  target: number;
  version: 'v1' | 'v2';
}

export interface RunningHaproxy {
  /** Each route's front port, in the order given. */
  ports: number[];
  stop(): Promise<void>;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

/**
 * A free port nothing answers on: a port freePort hands out can be taken by another process (an
 * ephemeral listener of an earlier test's child) before HAProxy binds it, and the requests then
 * reach that process instead. A few tries, then the last port.
 */
async function unansweredPort(): Promise<number> {
  let port = await freePort();
  for (let i = 0; i < 5 && (await accepts(port)); i++) port = await freePort();
  return port;
}

/**
 * A real HAProxy in TCP mode (TLS passes through untouched) in front of the given API ports, each
 * sending `send-proxy` (v1) or `send-proxy-v2` — as the production layout of docs/operations.md puts it in front
 * of HTTPS_PORT. No health checks: a check would open connections of its own.
 */
export async function startHaproxy(targets: Array<{ target: number; version: 'v1' | 'v2' }>): Promise<RunningHaproxy> {
  const routes: Route[] = [];
  for (const t of targets) routes.push({ ...t, port: await unansweredPort() });
  const dir = await mkdtemp(path.join(tmpdir(), 'haproxy-'));
  const config = [
    'global',
    '  maxconn 256',
    'defaults',
    '  mode tcp',
    '  timeout connect 5s',
    '  timeout client 60s',
    '  timeout server 60s',
    ...routes.flatMap((r, i) => [
      `frontend front${i}`,
      `  bind 127.0.0.1:${r.port}`,
      `  default_backend back${i}`,
      `backend back${i}`,
      `  server api 127.0.0.1:${r.target} ${r.version === 'v2' ? 'send-proxy-v2' : 'send-proxy'}`,
    ]),
    '',
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  const child: ChildProcess = spawn(HAPROXY, ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(
      'HAProxy listening',
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy exited ${child.exitCode}: ${stderr}`);
        return (await Promise.all(routes.map((r) => accepts(r.port)))).every(Boolean);
      },
      Boolean,
      15_000,
    );
    // A front port something else took meanwhile answers `accepts` too, and HAProxy then exits on
    // its failed bind: make sure it is HAProxy that answers.
    await new Promise((r) => setTimeout(r, 300));
    if (child.exitCode !== null) throw new Error(`haproxy exited ${child.exitCode}: ${stderr}`);
  } catch (err) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    ports: routes.map((r) => r.port),
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
