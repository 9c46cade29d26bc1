#!/usr/bin/env node
// The `hosted-agents` command. TypeScript sources run through tsx's require hook (no build step).
require('tsx/cjs');
require('../cli/main.ts');
