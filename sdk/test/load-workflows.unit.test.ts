import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadWorkflows } from '../src';

describe('SDK loadWorkflows(dir)', () => {
  let root: string;
  let count = 0;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'sdk-workflows-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  /** A fresh folder holding `files` (name → text). */
  async function folder(files: Record<string, string>): Promise<string> {
    const dir = path.join(root, `case-${++count}`);
    await mkdir(dir);
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
    return dir;
  }

  /** The message of the error `loadWorkflows(dir)` rejects with. */
  async function problem(dir: string): Promise<string> {
    try {
      await loadWorkflows(dir);
    } catch (error) {
      assert.ok(error instanceof Error);
      return error.message;
    }
    assert.fail('loadWorkflows succeeded');
  }

  it('reads name and when from the front matter and the rest as content, sorted by name', async () => {
    const dir = await folder({
      'a.md': '---\nname: Refund request\nwhen: the customer asks for a refund\n---\n\n\n1. Find the order.\n2. Refund it.\n\n  \n',
      'b.md': '---\nname: Late delivery\nwhen: a parcel is late\ntags: [shipping]\n---\n  Apologise first.\n',
    });
    assert.deepEqual(await loadWorkflows(dir), [
      { name: 'Late delivery', when: 'a parcel is late', content: '  Apologise first.' },
      { name: 'Refund request', when: 'the customer asks for a refund', content: '1. Find the order.\n2. Refund it.' },
    ]);
  });

  it('removes double or single quotes around values, with their escapes', async () => {
    const dir = await folder({
      'q.md': `---\nname: "Billing: \\"urgent\\" cases"\nwhen: 'it''s about money'\n---\nBody\n`,
    });
    assert.deepEqual(await loadWorkflows(dir), [{ name: 'Billing: "urgent" cases', when: "it's about money", content: 'Body' }]);
  });

  it('accepts CRLF line endings and a BOM; content keeps inner lines, with LF', async () => {
    const dir = await folder({ 'w.md': '\uFEFF---\r\nname: Windows\r\nwhen: always\r\n---\r\n\r\nLine 1\r\n\r\nLine 2\r\n' });
    assert.deepEqual(await loadWorkflows(dir), [{ name: 'Windows', when: 'always', content: 'Line 1\n\nLine 2' }]);
  });

  it('ignores files that are not .md, sub-folders, and other keys or indented lines', async () => {
    const dir = await folder({
      'notes.txt': 'not a workflow',
      'README.markdown': 'not a workflow either',
      'x.md': '---\n# a comment\nmeta:\n  name: nested\nname: Top\nwhen: now\n---\nDo it.',
    });
    await mkdir(path.join(dir, 'sub.md'));
    await writeFile(path.join(dir, 'sub.md', 'inner.md'), '---\nname: Inner\nwhen: never\n---\nNo.');
    assert.deepEqual(await loadWorkflows(dir), [{ name: 'Top', when: 'now', content: 'Do it.' }]);
  });

  it('an empty folder gives []', async () => {
    assert.deepEqual(await loadWorkflows(await folder({})), []);
  });

  it('a file without a name rejects with an error naming the file', async () => {
    const dir = await folder({ 'ok.md': '---\nname: Ok\nwhen: w\n---\nx', 'no-name.md': '---\nwhen: sometimes\n---\nBody' });
    const message = await problem(dir);
    assert.ok(message.includes(path.join(dir, 'no-name.md')), message);
    assert.match(message, /name/);
  });

  it('a file without a when, or with an empty one, rejects naming the file', async () => {
    for (const text of ['---\nname: A\n---\nBody', '---\nname: A\nwhen: ""\n---\nBody', '---\nname: A\nwhen:\n---\nBody']) {
      const dir = await folder({ 'no-when.md': text });
      const message = await problem(dir);
      assert.ok(message.includes(path.join(dir, 'no-when.md')), message);
      assert.match(message, /when/);
    }
  });

  it('a file without front matter, or with an unclosed one, rejects naming the file', async () => {
    for (const text of ['# Just markdown\n\nname: A\nwhen: B\n', '\n---\nname: A\nwhen: B\n---\nBody', '---\nname: A\nwhen: B\nBody']) {
      const dir = await folder({ 'plain.md': text });
      const message = await problem(dir);
      assert.ok(message.includes(path.join(dir, 'plain.md')), message);
      assert.match(message, /front matter/);
    }
  });

  it('a file with an empty body rejects naming the file', async () => {
    for (const text of ['---\nname: A\nwhen: B\n---\n', '---\nname: A\nwhen: B\n---\n  \n\n\t\n', '---\nname: A\nwhen: B\n---']) {
      const dir = await folder({ 'empty.md': text });
      const message = await problem(dir);
      assert.ok(message.includes(path.join(dir, 'empty.md')), message);
      assert.match(message, /content/);
    }
  });

  it('two files with the same name reject, naming both files', async () => {
    const dir = await folder({ '1.md': '---\nname: Same\nwhen: a\n---\nA', '2.md': '---\nname: Same\nwhen: b\n---\nB' });
    const message = await problem(dir);
    assert.ok(message.includes(path.join(dir, '1.md')) && message.includes(path.join(dir, '2.md')), message);
  });

  it('a missing folder rejects with the file-system error', async () => {
    await assert.rejects(loadWorkflows(path.join(root, 'missing')), { code: 'ENOENT' });
  });
});
