import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The README, docs/, bench/README.md and sdk/README.md link to one another's sections; a section
 * renamed or moved must not leave a link pointing nowhere, and every docs page must be findable
 * from the README.
 */
const root = path.resolve(__dirname, '../..');
const docsDir = path.join(root, 'docs');
const pages = ['README.md', 'bench/README.md', 'sdk/README.md', ...fs.readdirSync(docsDir).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-');
    const n = seen.get(slug);
    seen.set(slug, (n ?? -1) + 1);
    found.add(n === undefined ? slug : `${slug}-${n + 1}`);
  }
  return found;
}

/** The targets of the page's Markdown links outside code fences, but not web addresses. */
function links(markdown: string): string[] {
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe('links between the README, docs/, bench/README.md and sdk/README.md', () => {
  const text = new Map(pages.map((p) => [p, fs.readFileSync(path.join(root, p), 'utf8')]));
  const headings = new Map(pages.map((p) => [p, anchors(text.get(p)!)]));

  it('every relative link names a file that exists and, in a page, a heading it has', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(text.get(page)!)) {
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file === '' ? page : path.relative(root, path.resolve(root, path.dirname(page), file));
        if (!fs.existsSync(path.join(root, resolved))) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && headings.has(resolved) && !headings.get(resolved)!.has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('the README links every docs page, bench/README.md and sdk/README.md', () => {
    const readme = links(text.get('README.md')!).map((t) => t.split('#')[0]);
    assert.deepEqual(pages.filter((p) => p !== 'README.md' && !readme.includes(p)), []);
  });
});
