import assert from 'node:assert/strict';
import { CHUNK_MAX_CHARS, CHUNK_TARGET_CHARS, chunkSections, type Chunk } from '../../activities/knowledge/chunk';

/** Sentences of about 60 characters, numbered so that order and completeness can be checked. */
const sentences = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `Sentence number ${from + i} says something about refunds.`);

describe('chunking', () => {
  it('never lets a chunk span two sections, and numbers chunks across the file', () => {
    const chunks = chunkSections([
      { location: 'page 1', text: 'First page.' },
      { location: 'page 2', text: 'Second page.' },
    ]);
    assert.deepEqual(chunks, [
      { ord: 0, location: 'page 1', text: 'First page.' },
      { ord: 1, location: 'page 2', text: 'Second page.' },
    ]);
  });

  it('packs whole paragraphs up to the target and keeps every chunk under the maximum', () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} ${'word '.repeat(40).trim()}.`);
    const chunks: Chunk[] = chunkSections([{ location: 'page 1', text: paragraphs.join('\n\n') }]);
    assert.ok(chunks.length > 1);
    for (const c of chunks) assert.ok(c.text.length <= CHUNK_TARGET_CHARS, `${c.text.length} chars`);
    // No paragraph was cut: the chunks are the paragraphs, regrouped.
    assert.deepEqual(chunks.flatMap((c) => c.text.split('\n\n')), paragraphs);
  });

  it('splits a paragraph over the maximum between sentences, never inside one', () => {
    const text = sentences(60).join(' ');
    const chunks = chunkSections([{ location: 'page 3', text }]);
    assert.ok(chunks.length >= 3);
    for (const c of chunks) {
      assert.ok(c.text.length <= CHUNK_MAX_CHARS);
      assert.match(c.text, /^Sentence number \d+ .*refunds\.$/s);
    }
    assert.equal(chunks.map((c) => c.text).join(' '), text);
  });

  it('repeats the heading at the start of every chunk of a headed section', () => {
    const text = `Refunds\n\n${sentences(40).join(' ')}\n\n${sentences(40, 41).join(' ')}`;
    const chunks = chunkSections([{ location: 'section "Refunds"', text }], { targetChars: 500, maxChars: 800 });
    assert.ok(chunks.length >= 4);
    for (const c of chunks) {
      assert.ok(c.text.startsWith('Refunds\n\n'), c.text.slice(0, 40));
      assert.ok(c.text.length <= 800);
    }
    // Not for an unheaded section.
    const plain = chunkSections([{ location: 'page 1', text }], { targetChars: 500, maxChars: 800 });
    assert.equal(plain.filter((c) => c.text.startsWith('Refunds')).length, 1);
  });

  it('repeats a CSV header on the line above the rows of every chunk', () => {
    const rows = Array.from({ length: 50 }, (_, i) => `${i + 1},"item ${i + 1} with a fairly long description"`);
    const chunks = chunkSections([{ location: 'rows 1–50', text: ['id,name', ...rows].join('\n') }], { targetChars: 400, maxChars: 600 });
    assert.ok(chunks.length >= 3);
    for (const c of chunks) assert.match(c.text, /^id,name\n\d+,"item/);
    assert.deepEqual(chunks.flatMap((c) => c.text.split('\n').slice(1)), rows);
  });

  it('splits a sentence over the maximum between words, and a huge word by force', () => {
    const long = `${'lorem '.repeat(100).trim()}.`;
    const words = chunkSections([{ location: '', text: long }], { maxChars: 100 });
    for (const c of words) {
      assert.ok(c.text.length <= 100);
      assert.match(c.text, /^lorem( lorem)*\.?$/);
    }
    const huge = 'x'.repeat(350);
    const cut = chunkSections([{ location: '', text: `Before. ${huge} after.` }], { maxChars: 100 });
    assert.ok(cut.every((c) => c.text.length <= 100));
    assert.equal(cut.map((c) => c.text).join('').replace(/\s/g, ''), `Before.${huge}after.`);
  });

  it('collapses spaces, keeps paragraph breaks, drops empty sections', () => {
    const chunks = chunkSections([
      { location: '', text: '  Hello \t  world.  \n\n\n\n  Next   paragraph.\r\nSame paragraph. ' },
      { location: 'page 2', text: ' \n\n \t ' },
    ]);
    assert.deepEqual(chunks, [{ ord: 0, location: '', text: 'Hello world.\n\nNext paragraph.\nSame paragraph.' }]);
  });
});
