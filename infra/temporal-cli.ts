import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Finds the Temporal CLI (which carries the dev server), in the order docs/operations.md: The Temporal CLI gives:
 * TEMPORAL_CLI_PATH, `temporal` on PATH, our cache, the official download, and last — where Go is
 * installed and nothing could be downloaded — `go install …@v1.5.1` into the cache.
 * v1.5.1 is pinned because later tags carry a `replace` directive that `go install` refuses.
 */
const TEMPORAL_CLI_VERSION = '1.5.1';
const GO_PACKAGE = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;

/**
 * The host's variables the lookup reads: the process's environment, handed down from
 * config/env.ts (`Config.processEnv`), the one module that reads process.env.
 */
type HostEnv = Readonly<NodeJS.ProcessEnv>;

/** ~/.cache/hosted-agents/bin (or under XDG_CACHE_HOME): where the Go-built binaries are kept, outside any checkout. */
export function temporalCliCacheDir(env: HostEnv): string {
  const base = env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(base, 'hosted-agents', 'bin');
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function onPath(name: string, env: HostEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

interface LocateOptions {
  explicitPath?: string;
  allowDownload: boolean;
  log: (line: string) => void;
  /** PATH and XDG_CACHE_HOME are read from it, and `go install` inherits it. */
  env: HostEnv;
}

export async function locateTemporalCli(opts: LocateOptions): Promise<string> {
  if (opts.explicitPath) {
    if (!isExecutable(opts.explicitPath)) {
      throw new Error(`TEMPORAL_CLI_PATH: ${opts.explicitPath} is not an executable file`);
    }
    return opts.explicitPath;
  }
  const fromPath = onPath('temporal', opts.env);
  if (fromPath) return fromPath;
  const cacheDir = temporalCliCacheDir(opts.env);
  const cached = path.join(cacheDir, 'temporal');
  if (isExecutable(cached)) return cached;
  await mkdir(cacheDir, { recursive: true });
  if (opts.allowDownload && (await tryDownload(cached, opts.log))) return cached;
  if (onPath('go', opts.env)) {
    await goInstall(cacheDir, opts.env, opts.log);
    if (isExecutable(cached)) return cached;
  }
  throw new Error(
    'the Temporal CLI was not found: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or install Go so it can be built ' +
      `(go install ${GO_PACKAGE})`,
  );
}

function platformName(): { platform: string; arch: string } {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return { platform: process.platform, arch };
}

async function tryDownload(target: string, log: (line: string) => void): Promise<boolean> {
  const { platform, arch } = platformName();
  const url = `https://temporal.download/cli/archive/v${TEMPORAL_CLI_VERSION}?platform=${platform}&arch=${arch}`;
  log(`downloading the Temporal CLI v${TEMPORAL_CLI_VERSION}…`);
  const work = await mkdtemp(path.join(tmpdir(), 'temporal-cli-'));
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const archive = path.join(work, 'cli.tar.gz');
    await writeFile(archive, Buffer.from(await res.arrayBuffer()));
    await run('tar', ['-xzf', archive, '-C', work], () => undefined);
    const extracted = path.join(work, 'temporal');
    if (!existsSync(extracted)) throw new Error('archive has no `temporal` binary');
    await chmod(extracted, 0o755);
    await rename(extracted, target);
    log(`Temporal CLI saved to ${target}`);
    return true;
  } catch (e) {
    log(`download failed (${e instanceof Error ? e.message : String(e)}); trying another way`);
    return false;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function goInstall(cacheDir: string, env: HostEnv, log: (line: string) => void): Promise<void> {
  log(`building the Temporal CLI with \`go install ${GO_PACKAGE}\` (takes a few minutes, once)…`);
  const started = Date.now();
  let modules = 0;
  const ticker = setInterval(() => {
    log(`  still building the Temporal CLI: ${Math.round((Date.now() - started) / 1000)} s, ${modules} modules fetched`);
  }, 15_000);
  try {
    await run('go', ['install', GO_PACKAGE], (line) => {
      if (line.startsWith('go: downloading')) modules++;
    }, { ...env, GOBIN: cacheDir });
    log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s: ${path.join(cacheDir, 'temporal')}`);
  } finally {
    clearInterval(ticker);
  }
}

/** Runs a command to its end; `env` unset: the child inherits this process's environment. */
export function run(
  cmd: string,
  args: string[],
  onLine: (line: string) => void,
  env?: NodeJS.ProcessEnv,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) onLine(line.trim());
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}: ${tail}`))));
  });
}
