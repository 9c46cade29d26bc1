/**
 * Starts the hostile MCP server (mcp-hostile-server.ts) as a child process, as mcp-everything.ts
 * starts the reference server: its own process, so the bytes it holds or generates never count in
 * the memory of the process under test.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface HostileServer {
  /** `http://127.0.0.1:<port>`: Streamable HTTP at `/<mode>`, HTTP+SSE at `/sse/<mode>`. */
  origin: string;
  /** Per mode, the bytes the last streamed answer wrote before the client went away or it ended. */
  stats(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

const START_WAIT_MS = 15_000;
const STOP_WAIT_MS = 3_000;
const script = path.join(__dirname, 'mcp-hostile-server.ts');

export function startHostileMcp(): Promise<HostileServer> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', script], { stdio: ['ignore', 'pipe', 'pipe'], cwd: path.join(__dirname, '..', '..') });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  const stop = (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the hostile MCP server did not start within ${START_WAIT_MS} ms:\n${output}`));
    }, START_WAIT_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8_000);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the hostile MCP server exited (${code ?? signal}):\n${output}`));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const port = /LISTENING (\d+)/.exec(output)?.[1];
      if (!port) return;
      clearTimeout(timer);
      const origin = `http://127.0.0.1:${port}`;
      resolve({
        origin,
        stats: async () => (await (await fetch(`${origin}/stats`)).json()) as Record<string, number>,
        stop,
      });
    });
  });
}
