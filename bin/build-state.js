'use strict';
/**
 * Is build/ (written by `npm run build`, see scripts/build-server.js) fresh enough to run?
 *
 * The rule: build/build-info.json exists (the build writes it last, so an interrupted build has
 * none), build/cli/main.js exists, and the TypeScript sources of the server have not changed since
 * the build read them — no source file is newer than the newest one the build saw, and there are
 * as many as it saw (a file added or removed). Sources: every `.ts` file under SOURCE_DIRS, plus
 * SOURCE_FILES that exist. This costs one readdir per folder and one stat per file (~150 files,
 * a few ms). embed/dist/v1.js counts only by being there (build/embed/dist links to embed/dist,
 * which `npm run build:embed` may rebuild at any time without making the server build stale).
 *
 * Comparing source mtimes with the newest source mtime the build recorded (not with the clock
 * time of the build) keeps the rule independent of clocks: in the image, the sources and build/
 * come from the same build context with the same mtimes.
 *
 * Plain CommonJS with no dependencies: bin/hosted-agents.js runs it before anything is compiled.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const buildDir = path.join(root, 'build');
const infoFile = 'build-info.json';

/** Everything the CLI reaches (test/ops/docker-compose.unit.test.ts walks the same graph). */
const SOURCE_DIRS = ['api', 'services', 'turns', 'workers', 'workflows', 'activities', 'db', 'domain', 'config', 'infra', 'cli'];
const SOURCE_FILES = ['embed/build.ts', 'embed/page-template.ts'];
/** Counted when present, mtime ignored. */
const PRESENT_FILES = ['embed/dist/v1.js'];

/** The newest mtime (ms) and the number of the server's TypeScript sources under `base`. */
function sourceState(base = root) {
  let newestMtimeMs = 0;
  let files = 0;
  const consider = (file) => {
    const { mtimeMs } = fs.statSync(file);
    files += 1;
    if (mtimeMs > newestMtimeMs) newestMtimeMs = mtimeMs;
  };
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if (e.code === 'ENOENT') return;
      throw e;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) consider(full);
    }
  };
  for (const dir of SOURCE_DIRS) walk(path.join(base, dir));
  for (const file of SOURCE_FILES) if (fs.existsSync(path.join(base, file))) consider(path.join(base, file));
  for (const file of PRESENT_FILES) if (fs.existsSync(path.join(base, file))) files += 1;
  return { newestMtimeMs, files };
}

/**
 * The compiled CLI entry when build/ is fresh, else undefined; `reason` says why not (for the
 * one debug line: NODE_DEBUG=hosted-agents).
 */
function compiledEntry() {
  const entry = path.join(buildDir, 'cli', 'main.js');
  let info;
  try {
    info = JSON.parse(fs.readFileSync(path.join(buildDir, infoFile), 'utf8'));
  } catch {
    return { entry: undefined, reason: 'no build (npm run build writes build/)' };
  }
  if (!fs.existsSync(entry)) return { entry: undefined, reason: 'build/cli/main.js is missing' };
  const now = sourceState();
  const built = info.sources ?? {};
  if (now.files !== built.files) return { entry: undefined, reason: `${now.files} source files, the build saw ${built.files}` };
  if (now.newestMtimeMs > built.newestMtimeMs) return { entry: undefined, reason: 'sources changed since the build' };
  return { entry, reason: 'build is fresh' };
}

module.exports = { root, buildDir, infoFile, SOURCE_DIRS, SOURCE_FILES, sourceState, compiledEntry };
