#!/usr/bin/env node
// The `hosted-agents` command. It runs the compiled JavaScript in build/ (`npm run build`) when
// that build is fresh — not older than the TypeScript sources (rule: bin/build-state.js) — and
// otherwise the sources through tsx's require hook, as a checkout without a build does.
// NODE_DEBUG=hosted-agents prints which one and why.
const { compiledEntry } = require('./build-state');
const debug = require('node:util').debuglog('hosted-agents');

const started = process.hrtime.bigint();
const { entry, reason } = compiledEntry();
debug('%s: %s (checked in %d ms)', entry ? 'running build/' : 'running the sources through tsx', reason,
  Number(process.hrtime.bigint() - started) / 1e6);
if (entry) {
  require(entry);
} else {
  require('tsx/cjs');
  require('../cli/main.ts');
}
