import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../harness/cli';
import { useTestApi } from '../support/api';
import { blocksDir, documentationPages, markedBlocks, runBlockFile, writeBlock } from '../support/doc-blocks';

/**
 * Docs that cannot rot: every code block of README.md, docs/*.md and sdk/README.md marked
 * ```` ```ts runnable ```` is written into the repository, type-checked with the repository's
 * settings, and run with `npx tsx` against the test service (SERVICE_API_KEY, SERVICE_BASE_URL);
 * it must exit 0. A quick start that breaks fails here. See docs/testing.md, "Runnable doc blocks".
 */

const blocks = documentationPages().flatMap((page) => markedBlocks(page));
const typescript = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript');

describe('runnable code blocks of the documentation', function () {
  this.timeout(120_000);
  const api = useTestApi();
  let env: Record<string, string>;

  before(async () => {
    const { apiKey } = await api.newWorkspace({ credits: 1000 });
    env = { SERVICE_API_KEY: apiKey, SERVICE_BASE_URL: api.baseURL };
  });

  it('the marker sits on TypeScript blocks only, and the quick starts carry it', () => {
    // A marker on another language would be silently skipped: refuse it instead.
    assert.deepEqual(blocks.filter((b) => !typescript.includes(b)).map((b) => `${b.where} (${b.lang || 'no language'})`), []);
    const on = (page: string) => typescript.filter((b) => b.page === page).length;
    assert.ok(on('sdk/README.md') >= 2, 'the SDK README’s quick start and "Publish it" are runnable');
    assert.ok(on('README.md') >= 1, 'the README’s SDK in brief is runnable');
  });

  it('every runnable block type-checks with the repository’s settings', async () => {
    fs.rmSync(blocksDir, { recursive: true, force: true });
    for (const block of typescript) writeBlock(block);
    const tsconfig = { extends: '../../tsconfig.json', compilerOptions: { types: ['node'] }, include: ['*.ts'], exclude: [] };
    fs.writeFileSync(path.join(blocksDir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', blocksDir], { cwd: repoRoot }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    assert.equal(result, '', `the runnable blocks do not type-check (files in ${path.relative(repoRoot, blocksDir)}/):\n${result}`);
  });

  for (const block of typescript) {
    it(`${block.where} runs against the service and exits 0`, async () => {
      // Rejects with the command (the file it was written to) and its output on a non-zero exit.
      await runBlockFile(writeBlock(block), env);
    });
  }
});
