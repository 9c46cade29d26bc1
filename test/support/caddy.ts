import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { ChildProc } from '../../harness/child';
import { freePort } from '../../infra/temporal-dev-server';
import { waitFor } from './wait';

/** Debian's Caddy (`apt-get install caddy`; .ci/run installs it). */
const CADDY = process.env.CADDY_PATH ?? '/usr/bin/caddy';

export interface RunningCaddy {
  /** `https://localhost:<port>`: the TLS front, its certificate issued by Caddy's own local CA. */
  url: string;
  /** That CA's root certificate (PEM), the one thing a client must trust. */
  rootCA: string;
  /** A `fetch` that trusts `rootCA` (for the SDK's `fetch` option). */
  fetch: typeof fetch;
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real Caddy terminating TLS for `localhost` with a locally made CA (`tls internal`: Caddy makes
 * the root and intermediate in its data directory, nothing is installed in the system's trust
 * store), load-balancing over `upstreams` round robin, streaming responses unbuffered
 * (`flush_interval -1`, for SSE). `site` adds lines to the site block (a recipe's auth, say).
 */
export async function startCaddy(opts: { upstreams: number[]; site?: string[]; routes?: string[] }): Promise<RunningCaddy> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ha-caddy-'));
  const [port, httpPort] = [await freePort(), await freePort()];
  const caddyfile = [
    '{',
    '  admin off',
    '  local_certs',
    '  skip_install_trust',
    `  http_port ${httpPort}`,
    `  https_port ${port}`,
    `  storage file_system ${dir}/data`,
    '}',
    `https://localhost:${port} {`,
    '  tls internal',
    ...(opts.site ?? []).map((l) => `  ${l}`),
    ...(opts.routes ?? [
      `reverse_proxy ${opts.upstreams.map((p) => `127.0.0.1:${p}`).join(' ')} {`,
      '  lb_policy round_robin',
      // A request that finds one API down is tried on the other for up to 5 s.
      '  lb_try_duration 5s',
      '  flush_interval -1',
      '}',
    ]).map((l) => `  ${l}`),
    '}',
    '',
  ].join('\n');
  const config = path.join(dir, 'Caddyfile');
  await writeFile(config, caddyfile);
  const proc = new ChildProc('caddy', CADDY, ['run', '--config', config, '--adapter', 'caddyfile'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
  });
  const rootFile = path.join(dir, 'data', 'pki', 'authorities', 'local', 'root.crt');
  try {
    await waitFor(`caddy on ${port}`, async () => ({ running: proc.running, ready: existsSync(rootFile) && (await accepts(port)) }), (v) => v.ready || !v.running, 20_000);
    if (!proc.running) throw new Error(`caddy exited:\n${proc.output}`);
  } catch (e) {
    await proc.stop();
    throw e;
  }
  const rootCA = await readFile(rootFile, 'utf8');
  const dispatcher = new Agent({ connect: { ca: rootCA } });
  const trusting = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as typeof fetch;
  return {
    url: `https://localhost:${port}`,
    rootCA,
    fetch: trusting,
    output: () => proc.output,
    async stop() {
      await proc.stop();
      await dispatcher.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
