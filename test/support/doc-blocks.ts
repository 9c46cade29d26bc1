import fs from 'node:fs';
import path from 'node:path';
import { ChildProc } from '../../harness/child';
import { repoRoot } from '../../harness/cli';

/**
 * The code blocks of the documentation marked as runnable: a fence whose info string is
 * `ts runnable` (GitHub highlights by the first word, so readers see plain TypeScript). They are
 * written into the repository (so `@hosted-agents/sdk` resolves exactly as for a reader who pastes
 * the block into a file there) and run with `npx tsx`, as the docs tell readers to.
 */

/** Where the blocks are written: inside the repository, ignored by git, lint and the type check. */
export const blocksDir = path.join(repoRoot, 'test-artifacts', 'doc-blocks');

/** The pages whose blocks may be marked: the README, docs/*.md and the SDK's README. */
export function documentationPages(): string[] {
  const docs = fs.readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`), 'sdk/README.md'];
}

interface DocBlock {
  /** The page, relative to the repository, e.g. `sdk/README.md`. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's language (the first word of its info string). */
  lang: string;
  code: string;
  /** `page:line`, for messages and file names. */
  where: string;
}

const FENCE = /^(\s*)(`{3,})(.*)$/;

/** Every fenced block of a page whose info string has the word `runnable`, whatever its language. */
export function markedBlocks(page: string, markdown = fs.readFileSync(path.join(repoRoot, page), 'utf8')): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent, ticks, info] = open as unknown as [string, string, string, string];
    const words = info.trim().split(/\s+/);
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length; i++) {
      const close = FENCE.exec(lines[i]!);
      if (close && close[2]!.length >= ticks.length && close[3]!.trim() === '') break;
      body.push(lines[i]!.startsWith(indent) ? lines[i]!.slice(indent.length) : lines[i]!);
    }
    if (words.includes('runnable')) {
      blocks.push({ page, line: start + 1, lang: words[0] ?? '', code: `${body.join('\n')}\n`, where: `${page}:${start + 1}` });
    }
  }
  return blocks;
}

/** The file a block is written to (stable per page and line, so a failure names it). */
function blockFile(block: DocBlock): string {
  return path.join(blocksDir, `${block.page.replace(/[^a-zA-Z0-9]+/g, '-')}-L${block.line}.ts`);
}

/** Writes the block into the repository and returns the file. */
export function writeBlock(block: DocBlock): string {
  fs.mkdirSync(blocksDir, { recursive: true });
  const file = blockFile(block);
  fs.writeFileSync(file, block.code);
  return file;
}

/**
 * Runs a written block as a reader does — `npx tsx <file>` from the repository's root — with only
 * PATH, HOME and `env` (SERVICE_API_KEY, SERVICE_BASE_URL…) in its environment. Resolves with its
 * stdout; a non-zero exit (or no exit within `limitMs`) rejects with the command and its output.
 */
export function runBlockFile(file: string, env: Record<string, string>, limitMs = 90_000): Promise<string> {
  const relative = path.relative(repoRoot, file);
  const proc = new ChildProc(`npx tsx ${relative}`, 'npx', ['--no-install', 'tsx', relative], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    keepStdout: true,
  });
  return proc.result(limitMs);
}
