#!/usr/bin/env node
/**
 * `npm run build:server` (part of `npm run build`): the production start path.
 *
 *   build/<folder>/…js       the server compiled to CommonJS by tsc (tsconfig.build.json), same layout
 *                            as the sources, so relative paths (../embed/dist, ../workflows) hold
 *   build/embed/dist         a relative symlink to embed/dist, which the compiled API serves from
 *                            (run `npm run build:embed` first; `npm run build` does)
 *   build/db/turns/sql       a relative symlink to db/turns/sql, the SQL functions migrations load
 *   build/workflow-bundle.js the workflow bundle (bundleWorkflowCode), loaded by the worker as
 *                            `workflowBundle: { codePath }` instead of bundling at every start
 *   build/workflow-bundle-traced.js  the same with OpenTelemetry's workflow interceptors, loaded
 *                            instead when tracing is on (docs/operations.md: Tracing)
 *   build/build-info.json    written last: the state of the sources the build read (bin/build-state.js
 *                            compares it with the sources before running build/) and the
 *                            @temporalio/worker version that made the bundle
 *
 * The build happens in a sibling folder that replaces build/ at the end, so a process running
 * build/ never sees it half-written, and a failed build leaves the previous one (or none) in place.
 * Type errors fail the build.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { root, buildDir, infoFile, SOURCE_DIRS, SOURCE_FILES, sourceState } = require('../bin/build-state');

/** tsconfig.build.json compiles exactly what bin/build-state.js watches. */
function checkIncludes() {
  const ts = require('typescript');
  const { config, error } = ts.readConfigFile(path.join(root, 'tsconfig.build.json'), ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const included = [...config.include].sort().join(' ');
  const watched = [...SOURCE_DIRS, ...SOURCE_FILES].sort().join(' ');
  if (included !== watched) {
    throw new Error(`tsconfig.build.json includes ${included}\nbut bin/build-state.js watches ${watched}: keep them the same`);
  }
}

async function main() {
  const started = Date.now();
  checkIncludes();
  // Read first: a source saved while the build runs makes the result stale, never falsely fresh.
  const sources = sourceState();
  const embedDist = path.join(root, 'embed', 'dist');
  if (!fs.existsSync(path.join(embedDist, 'v1.js'))) {
    throw new Error('embed/dist is missing: run `npm run build:embed` first (`npm run build` does both)');
  }

  const staging = `${buildDir}.tmp-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', staging], {
      cwd: root,
      stdio: 'inherit',
    });
    if (tsc.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (exit ${tsc.status ?? tsc.signal})`);

    // The compiled API reads ../embed/dist from build/api/: a relative link to the one embed/dist,
    // so a later `npm run build:embed` is served without rebuilding the server.
    fs.symlinkSync(path.join('..', '..', 'embed', 'dist'), path.join(staging, 'embed', 'dist'), 'dir');
    // Migrations load the turn lifecycle's SQL functions from db/turns/sql (db/turns/sql-functions.ts):
    // the same link, so the compiled migrations read the one copy of each.
    fs.symlinkSync(path.join('..', '..', '..', 'db', 'turns', 'sql'), path.join(staging, 'db', 'turns', 'sql'), 'dir');

    // The same bundler options as a worker that bundles at start (workers/worker.ts), from the
    // TypeScript sources so that workflow stack traces name them.
    const { bundleWorkflows, PREBUILT_BUNDLE_FILE, PREBUILT_TRACED_BUNDLE_FILE, BUILD_INFO_FILE } = require(path.join(staging, 'workers', 'worker.js'));
    if (BUILD_INFO_FILE !== infoFile) throw new Error(`workers/worker.ts reads ${BUILD_INFO_FILE}, bin/build-state.js ${infoFile}`);
    const workflowsPath = path.join(root, 'workflows', 'index.ts');
    for (const [file, traced] of [[PREBUILT_BUNDLE_FILE, false], [PREBUILT_TRACED_BUNDLE_FILE, true]]) {
      const bundle = await bundleWorkflows(workflowsPath, traced);
      fs.writeFileSync(path.join(staging, file), bundle.code);
    }

    const info = {
      builtAt: new Date().toISOString(),
      sources,
      temporalWorkerVersion: require('@temporalio/worker/package.json').version,
      node: process.version,
    };
    fs.writeFileSync(path.join(staging, infoFile), `${JSON.stringify(info, null, 2)}\n`);

    // Swap: the old build moves aside first, so build/ is missing for a moment at most (the
    // launcher then runs the sources), never half-written. Another build finishing at the same
    // moment (two `npm test` in one checkout) may put its build/ back in between: retry.
    const olds = [];
    for (let attempt = 0; ; attempt++) {
      const old = `${buildDir}.old-${process.pid}-${attempt}`;
      try {
        fs.renameSync(buildDir, old);
        olds.push(old);
      } catch (e) {
        if (e.code !== 'ENOENT') throw e;
      }
      try {
        fs.renameSync(staging, buildDir);
        break;
      } catch (e) {
        if ((e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') || attempt >= 10) throw e;
      }
    }
    for (const old of olds) fs.rmSync(old, { recursive: true, force: true });

    const kb = Math.round(fs.statSync(path.join(buildDir, PREBUILT_BUNDLE_FILE)).size / 1024);
    console.log(`build/: ${sources.files} sources compiled, workflow bundle ${kb} KB, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (e) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
