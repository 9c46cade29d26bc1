import assert from 'node:assert/strict';
import { documentAsText } from '../../activities/knowledge/document-text';
import { DEFAULT_EXTRACTION_LIMITS, extractText, type Extraction } from '../../activities/knowledge/extract';
import { makeDocx, makePdf } from '../support/documents';

const utf8 = (text: string) => new TextEncoder().encode(text);
const ok = (e: Extraction) => {
  if (!e.ok) throw new Error(`extraction failed: ${e.reason}`);
  return e;
};

describe('text extraction', () => {
  it('has the documented default limits', () => {
    assert.deepEqual(DEFAULT_EXTRACTION_LIMITS, {
      maxBytes: 25 * 1024 * 1024,
      maxPages: 500,
      timeMs: 20_000,
      maxChars: 2_000_000,
      maxUnzippedBytes: 32 * 1024 * 1024,
      maxInflatedBytes: 128 * 1024 * 1024,
      maxZipEntries: 10_000,
      maxParagraphs: 200_000,
    });
  });

  it('reads a PDF page by page, each page under its own location', async () => {
    const content = await makePdf(['The first page.', 'Refunds are paid within thirty days.\n\nA second paragraph.', 'The last page.']);
    const e = ok(await extractText({ path: 'policy.pdf', mimeType: 'application/pdf', content }));
    assert.equal(e.format, 'pdf');
    assert.deepEqual(
      e.sections.map((s) => s.location),
      ['page 1', 'page 2', 'page 3'],
    );
    assert.equal(e.sections[1]?.text, 'Refunds are paid within thirty days.\n\nA second paragraph.');
    assert.equal(e.truncated, undefined);
  });

  it('joins the wrapped lines of a PDF paragraph with spaces', async () => {
    const sentence = 'Every word of this long sentence wraps onto several lines of the page when it is drawn. ';
    const e = ok(await extractText({ path: 'long.pdf', mimeType: 'application/pdf', content: await makePdf([sentence.repeat(4)]) }));
    assert.equal(e.sections[0]?.text, sentence.repeat(4).trim());
  });

  it('reads the first maxPages pages of a longer PDF and says so', async () => {
    const content = await makePdf(['one', 'two', 'three']);
    const e = ok(await extractText({ path: 'a.pdf', mimeType: 'application/pdf', content }, { maxPages: 2 }));
    assert.deepEqual(
      e.sections.map((s) => s.text),
      ['one', 'two'],
    );
    assert.equal(e.truncated, 'only the first 2 of 3 pages were read');
  });

  it('fails with a reason on a damaged PDF and on one without a text layer', async () => {
    const junk = new Uint8Array(2000).map((_, i) => (i * 7919) % 256);
    const damaged = await extractText({ path: 'bad.pdf', mimeType: 'application/pdf', content: new Uint8Array([...utf8('%PDF-1.7\n'), ...junk]) });
    assert.equal(damaged.ok, false);
    assert.match(damaged.ok ? '' : damaged.reason, /damaged or not really a PDF/);
    const scanned = await extractText({ path: 'scan.pdf', mimeType: 'application/pdf', content: await makePdf(['', '']) });
    assert.deepEqual(scanned, { ok: false, reason: 'the PDF has no text layer (scanned pages need OCR, which is not done)' });
  });

  it('reads a DOCX as one section per heading, the heading first in its text', async () => {
    const content = await makeDocx([
      { heading: 'Refunds', paragraphs: ['Refunds take thirty days.', 'Ask support.'] },
      { heading: 'Shipping', paragraphs: ['Parcels leave on Mondays.'] },
    ]);
    const e = ok(await extractText({ path: 'faq.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', content }));
    assert.equal(e.format, 'docx');
    assert.deepEqual(e.sections, [
      { location: 'section "Refunds"', text: 'Refunds\n\nRefunds take thirty days.\n\nAsk support.' },
      { location: 'section "Shipping"', text: 'Shipping\n\nParcels leave on Mondays.' },
    ]);
  });

  it('fails with a reason on a DOCX that is not a Word zip', async () => {
    const e = await extractText({ path: 'x.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', content: utf8('not a zip') });
    assert.equal(e.ok, false);
    assert.match(e.ok ? '' : e.reason, /not really a DOCX/);
  });

  it('reads HTML without scripts and styles, split at headings, blocks as paragraphs', async () => {
    const html = `<html><head><title>t</title><style>p{color:red}</style></head><body>
      <p>Intro &amp; welcome.</p><script>alert("nope")</script>
      <h2>Refunds</h2><p>Paid in   thirty
      days.</p><ul><li>Card</li><li>Bank</li></ul>
      <table><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>10</td></tr></table>
      <noscript>enable JS</noscript></body></html>`;
    const e = ok(await extractText({ path: 'page.html', mimeType: 'text/html', content: utf8(html) }));
    assert.deepEqual(e.sections, [
      { location: '', text: 'Intro & welcome.' },
      { location: 'section "Refunds"', text: 'Refunds\n\nPaid in thirty days.\n\nCard\nBank\n\nPlan | Price\nPro | 10' },
    ]);
  });

  it('splits Markdown at ATX headings but not at a # inside a code fence', async () => {
    const md = 'Preface.\n\n# Setup\n\nRun this:\n\n```sh\n# not a heading\nnpm test\n```\n\n## Usage ##\n\nCall it.\n';
    const e = ok(await extractText({ path: 'README.md', mimeType: 'text/markdown', content: utf8(md) }));
    assert.deepEqual(
      e.sections.map((s) => s.location),
      ['', 'section "Setup"', 'section "Usage"'],
    );
    assert.equal(e.sections[1]?.text, '# Setup\n\nRun this:\n\n```sh\n# not a heading\nnpm test\n```');
    assert.equal(e.sections[2]?.text, '## Usage ##\n\nCall it.');
  });

  it('reads CSV in sections of 50 rows, each starting with the header', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => `${i + 1},"item ${i + 1}"`);
    rows[2] = '3,"a field with a\nline break"';
    const e = ok(await extractText({ path: 'items.csv', mimeType: 'text/csv', content: utf8(['id,name', ...rows].join('\r\n')) }));
    assert.deepEqual(
      e.sections.map((s) => s.location),
      ['rows 1–50', 'rows 51–100', 'rows 101–120'],
    );
    for (const s of e.sections) assert.ok(s.text.startsWith('id,name\n'));
    assert.equal(e.sections[1]?.text.split('\n')[1], '51,"item 51"');
    assert.equal(e.sections[0]?.text.split('\n').length, 52);
  });

  it('reads plain text as one section and cuts at maxChars, saying where', async () => {
    const e = ok(await extractText({ path: 'notes.txt', mimeType: 'text/plain', content: utf8('abcdefghij') }, { maxChars: 4 }));
    assert.deepEqual(e.sections, [{ location: '', text: 'abcd' }]);
    assert.equal(e.truncated, 'only the first 4 characters were kept (the text stops in the file)');
  });

  it('calls an image unsupported, and refuses a file over maxBytes', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const image = await extractText({ path: 'logo.png', mimeType: 'image/png', content: png });
    assert.equal(image.ok, false);
    assert.equal(!image.ok && image.unsupported, true);
    const big = await extractText({ path: 'a.txt', mimeType: 'text/plain', content: utf8('12345') }, { maxBytes: 4 });
    assert.deepEqual(big, { ok: false, reason: 'the file is 5 bytes, over the 4-byte limit for text extraction' });
  });

  it('gives up on a PDF when the time limit runs out', async () => {
    const content = await makePdf(['one', 'two']);
    const e = await extractText({ path: 'a.pdf', mimeType: 'application/pdf', content }, { timeMs: 0 });
    assert.deepEqual(e, { ok: false, reason: 'reading the file took longer than 0 s' });
  });

  it('rejects with the signal reason when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('turn cancelled'));
    const content = await makePdf(['one']);
    await assert.rejects(extractText({ path: 'a.pdf', mimeType: 'application/pdf', content }, {}, controller.signal), /turn cancelled/);
  });

  it('files.read shows a document with a marker per section, or says why it has no text', async () => {
    const pdf = await extractText({ path: 'report.pdf', mimeType: 'application/pdf', content: await makePdf(['Intro.', 'Numbers.', 'End.']) }, { maxPages: 2 });
    assert.deepEqual(documentAsText(pdf, 'report.pdf'), {
      ok: true,
      content: '[page 1]\nIntro.\n\n[page 2]\nNumbers.\n\n[only the first 2 of 3 pages were read]',
    });
    const docx = await extractText({
      path: 'faq.docx',
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      content: await makeDocx([{ heading: 'Refunds', paragraphs: ['Thirty days.'] }]),
    });
    assert.equal(documentAsText(docx, 'faq.docx').content, '[section "Refunds"]\nRefunds\n\nThirty days.');
    const scanned = await extractText({ path: 'scan.pdf', mimeType: 'application/pdf', content: await makePdf(['']) });
    assert.deepEqual(documentAsText(scanned, 'scan.pdf'), {
      ok: false,
      content: 'scan.pdf: the PDF has no text layer (scanned pages need OCR, which is not done)',
    });
    const long = documentAsText({ ok: true, format: 'text', sections: [{ location: '', text: 'x'.repeat(20_000) }] }, 'big.txt');
    assert.match(long.content, /\[truncated: 4000 more characters\]$/);
  });
});
