import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { isExecutable, onPath, run, temporalCliCacheDir } from '../infra/temporal-cli';

/**
 * The Temporal server and its SQL schema tool, for the cluster the tests and benches start
 * (harness/temporal-cluster-launcher.ts). v1.29.1 is the server the pinned CLI (v1.5.1) embeds, so
 * the dev server and the cluster run the same history code; docker-compose.yml pins the same.
 * Found in TEMPORAL_SERVER_PATH / TEMPORAL_SQL_TOOL_PATH, else our cache; else built once with
 * `go install` from the Go module proxy (about three minutes on two cores).
 */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
const MODULE = 'go.temporal.io/server';

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
}

const builds = [
  { name: 'temporal-server', pkg: 'cmd/server', built: 'server', env: 'TEMPORAL_SERVER_PATH' },
  { name: 'temporal-sql-tool', pkg: 'cmd/tools/sql', built: 'sql', env: 'TEMPORAL_SQL_TOOL_PATH' },
] as const;

export async function locateTemporalServer(log: (line: string) => void): Promise<TemporalServerBinaries> {
  const found: string[] = [];
  for (const b of builds) {
    const explicit = process.env[b.env];
    if (explicit) {
      if (!isExecutable(explicit)) throw new Error(`${b.env}: ${explicit} is not an executable file`);
      found.push(explicit);
      continue;
    }
    const cached = path.join(temporalCliCacheDir(process.env), b.name);
    if (!isExecutable(cached)) await goInstall(b.pkg, b.built, cached, log);
    found.push(cached);
  }
  const [server, sqlTool] = found as [string, string];
  return { server, sqlTool };
}

/** `go install` names the binary after its package folder; it is built in a scratch GOBIN and renamed into the cache. */
async function goInstall(pkg: string, built: string, target: string, log: (line: string) => void): Promise<void> {
  if (!onPath('go', process.env)) throw new Error(`${path.basename(target)} was not found in ${path.dirname(target)} and Go is not installed to build it (go install ${MODULE}/${pkg}@v${TEMPORAL_SERVER_VERSION})`);
  await mkdir(path.dirname(target), { recursive: true });
  const gobin = await mkdtemp(`${target}.build-`);
  const started = Date.now();
  log(`building ${path.basename(target)} with \`go install ${MODULE}/${pkg}@v${TEMPORAL_SERVER_VERSION}\` (minutes, once)…`);
  const ticker = setInterval(() => log(`  still building ${path.basename(target)}: ${Math.round((Date.now() - started) / 1000)} s`), 30_000);
  try {
    await run('go', ['install', `${MODULE}/${pkg}@v${TEMPORAL_SERVER_VERSION}`], () => undefined, { ...process.env, GOBIN: gobin });
    await rename(path.join(gobin, built), target);
    log(`${path.basename(target)} built in ${Math.round((Date.now() - started) / 1000)} s: ${target}`);
  } finally {
    clearInterval(ticker);
    await rm(gobin, { recursive: true, force: true });
  }
}
