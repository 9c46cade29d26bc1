// Preloaded with `node --require` into a process under test: when it exits, writes the paths of
// every CommonJS module it loaded to LOADED_MODULES_FILE (one per line), so a test can see what a
// process never loaded (tracing off: no OpenTelemetry module).
'use strict';
const fs = require('node:fs');

const file = process.env.LOADED_MODULES_FILE;
if (file) process.on('exit', () => fs.writeFileSync(file, `${Object.keys(require.cache).join('\n')}\n`));
