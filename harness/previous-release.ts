import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './cli';

export interface PreviousRelease {
  /** The commit the tree was taken from. */
  ref: string;
  /** Its files, with this checkout's node_modules linked in, or its own when its lockfile differs. */
  dir: string;
  remove(): Promise<void>;
}

/**
 * The code a rolling upgrade replaces, as a tree of files of its own: UPGRADE_FROM_REF when set,
 * else the parent of the last commit that changed `workflows/` — the newest workflow code that
 * differs from this checkout's, so the old and new workers really run different bundles.
 * It runs on this checkout's node_modules when its package-lock.json is the same; otherwise on
 * its own, installed with `npm ci` (about 45 s from npm's cache), as its own image would: a
 * release that dropped a package must not take it away from the release it replaces.
 */
export async function checkoutPreviousRelease(): Promise<PreviousRelease> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();
  const ref = process.env.UPGRADE_FROM_REF || git('rev-parse', `${git('rev-list', '-1', 'HEAD', '--', 'workflows')}~1`);
  const dir = await mkdtemp(path.join(tmpdir(), 'ha-previous-'));
  const archive = spawnSync('sh', ['-c', `git archive "${ref}" | tar -x -C "${dir}"`], { cwd: repoRoot, encoding: 'utf8' });
  if (archive.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`could not take the tree of ${ref} (a shallow clone? fetch more history, or set UPGRADE_FROM_REF): ${archive.stderr}`);
  }
  const remove = () => rm(dir, { recursive: true, force: true });
  const sameLockfile = git('show', `${ref}:package-lock.json`) === (await readFile(path.join(repoRoot, 'package-lock.json'), 'utf8')).trim();
  if (sameLockfile) {
    await symlink(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
    return { ref, dir, remove };
  }
  const install = spawnSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
  if (install.status !== 0) {
    await remove();
    throw new Error(`npm ci of ${ref}'s dependencies failed (${install.status ?? install.signal}): ${install.stderr.slice(-2000)}`);
  }
  return { ref, dir, remove };
}
