import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/**
 * package-lock.json records every platform's optional bindings (rollup, esbuild, swc, …), not only
 * this machine's. A lockfile regenerated over an existing node_modules drops the others (npm/cli#4828):
 * `npm install` on another machine then rewrites the lockfile, and `npm ci` there installs a package
 * without its native binding. npm itself never notices a missing nested entry, so this test does.
 */

interface LockEntry {
  optionalDependencies?: Record<string, string>;
}

const root = path.resolve(__dirname, '../..');
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};

/** Node's lookup: `<dir>/node_modules/<name>`, walking up from the dependent's folder to the root. */
function resolves(from: string, name: string): boolean {
  let dir = from;
  for (;;) {
    if (lock.packages[`${dir === '' ? '' : `${dir}/`}node_modules/${name}`]) return true;
    if (dir === '') return false;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut < 0 ? '' : dir.slice(0, cut);
  }
}

describe('package-lock.json', () => {
  it('is a version 3 lockfile', () => {
    assert.equal(lock.lockfileVersion, 3);
  });

  it("lists every package's optional dependencies for all platforms", () => {
    const missing: string[] = [];
    for (const [at, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolves(at, name)) missing.push(`${at || '(root)'} -> ${name}`);
      }
    }
    assert.deepEqual(missing, [], 'regenerate from a clone without node_modules, e.g. `npm update <pkg> --package-lock-only`');
  });
});
