import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { envSchema } from '../../config/env';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS script, run by npm too
const { docFile, envTable, render } = require('../../scripts/env-example') as {
  docFile: string;
  envTable(doc: string): Array<{ names: string[]; defaultText: string; meaning: string }>;
  render(doc: string): string;
};

/** config/env.ts, the environment table of docs/operations.md and .env.example name the same variables, and the file is current. */
describe('.env.example and the environment table of docs/operations.md', () => {
  const root = path.resolve(__dirname, '../..');
  const doc = fs.readFileSync(docFile, 'utf8');
  const documented = new Set(envTable(doc).flatMap((r) => r.names));

  it('documents every variable config/env.ts reads, and nothing it does not', () => {
    const read = Object.keys(envSchema.shape);
    assert.deepEqual(read.filter((k) => !documented.has(k)), [], 'read but not in the docs/operations.md table');
    assert.deepEqual([...documented].filter((k) => !read.includes(k)), [], 'in the docs/operations.md table but not read');
  });

  it('.env.example is what `npm run env:example` writes from the table', () => {
    const file = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    assert.equal(file, render(doc), 'stale: run npm run env:example');
    for (const name of documented) assert.match(file, new RegExp(`^# ${name}=`, 'm'));
  });
});
