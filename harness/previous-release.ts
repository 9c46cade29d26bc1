import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './cli';

export interface PreviousRelease {
  /** The commit the tree was taken from. */
  ref: string;
  /** Its files, with this checkout's node_modules linked in. */
  dir: string;
  remove(): Promise<void>;
}

/**
 * The code a rolling upgrade replaces, as a tree of files of its own: UPGRADE_FROM_REF when set,
 * else the parent of the last commit that changed `workflows/` — the newest workflow code that
 * differs from this checkout's, so the old and new workers really run different bundles.
 * It runs on this checkout's node_modules: an upgrade that also changes dependencies is not what
 * this checks (the replay test covers the workflow code against recorded histories either way).
 */
export async function checkoutPreviousRelease(): Promise<PreviousRelease> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  const ref = process.env.UPGRADE_FROM_REF || git('rev-parse', `${git('rev-list', '-1', 'HEAD', '--', 'workflows')}~1`);
  const dir = await mkdtemp(path.join(tmpdir(), 'ha-previous-'));
  const archive = spawnSync('sh', ['-c', `git archive "${ref}" | tar -x -C "${dir}"`], { cwd: repoRoot, encoding: 'utf8' });
  if (archive.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`could not take the tree of ${ref} (a shallow clone? fetch more history, or set UPGRADE_FROM_REF): ${archive.stderr}`);
  }
  await symlink(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
  return { ref, dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
