import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { envSchema } from '../../config/env';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS script, run by npm too
const { envTable, render } = require('../../scripts/env-example') as {
  envTable(readme: string): Array<{ names: string[]; defaultText: string; meaning: string }>;
  render(readme: string): string;
};

/** config/env.ts, the README's table and .env.example name the same variables, and the file is current. */
describe('.env.example and the README environment table', () => {
  const root = path.resolve(__dirname, '../..');
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const documented = new Set(envTable(readme).flatMap((r) => r.names));

  it('documents every variable config/env.ts reads, and nothing it does not', () => {
    const read = Object.keys(envSchema.shape);
    assert.deepEqual(read.filter((k) => !documented.has(k)), [], 'read but not in the README table');
    assert.deepEqual([...documented].filter((k) => !read.includes(k)), [], 'in the README table but not read');
  });

  it('.env.example is what `npm run env:example` writes from the table', () => {
    const file = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    assert.equal(file, render(readme), 'stale: run npm run env:example');
    for (const name of documented) assert.match(file, new RegExp(`^# ${name}=`, 'm'));
  });
});
