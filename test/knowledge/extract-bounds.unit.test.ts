import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import yazl from 'yazl';
import { buffer } from 'node:stream/consumers';
import { extractText } from '../../activities/knowledge/extract';
import { extractInSandbox } from '../../activities/knowledge/extract-sandbox';
import { makeDocx, makePdf } from '../support/documents';
import { docxBomb, pdfBomb, pdfWithContent } from '../support/document-bombs';

const failure = (e: Awaited<ReturnType<typeof extractText>>) => (e.ok ? `read ${e.sections.length} sections` : e.reason);

/** Bounds checked before a library parses a file, and the sandbox that holds what slips past them. */
describe('text extraction: bounds and the sandbox', function () {
  this.timeout(120_000);

  it('refuses a DOCX whose parts unzip past maxUnzippedBytes, having kept none of it', async () => {
    const before = process.memoryUsage().rss;
    const e = await extractText({ path: 'bomb.docx', mimeType: '', content: await docxBomb(40) });
    assert.equal(failure(e), 'the DOCX document expands past 32 MB when unzipped');
    assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'nothing near 40 MB was held');
  });

  it('refuses a DOCX with more than maxParagraphs paragraphs, and one with too many zip entries', async () => {
    assert.equal(failure(await extractText({ path: 'p.docx', mimeType: '', content: await docxBomb(10) })), 'the DOCX document has more than 200000 paragraphs');
    const zip = new yazl.ZipFile();
    for (let i = 0; i < 30; i++) zip.addBuffer(Buffer.from('x'), `word/part${i}.xml`);
    zip.end();
    const e = await extractText({ path: 'e.docx', mimeType: '', content: await buffer(zip.outputStream) }, { maxZipEntries: 20 });
    assert.equal(failure(e), 'the DOCX document has 30 zip entries, more than the 20 allowed');
  });

  it('refuses a PDF whose streams inflate past maxInflatedBytes; images are not counted', async () => {
    assert.equal(failure(await extractText({ path: 'bomb.pdf', mimeType: '', content: await pdfBomb(200) })), 'the PDF expands past 128 MB when its streams are inflated');
    // The same inflated size declared an image is not a stream text extraction would decode.
    const image = await pdfBomb(1);
    const asImage = Buffer.from(image.toString('latin1').replace('/Filter /FlateDecode', '/Subtype /Image /Filter /FlateDecode'), 'latin1');
    const e = await extractText({ path: 'img.pdf', mimeType: '', content: asImage }, { maxInflatedBytes: 1024 });
    assert.notEqual(failure(e), 'the PDF expands past 0 MB when its streams are inflated');
    assert.equal(failure(await extractText({ path: 'small.pdf', mimeType: '', content: pdfWithContent(deflateSync('BT /F1 12 Tf 72 720 Td (fine) Tj ET')) }, { maxInflatedBytes: 1024 })), 'read 1 sections');
  });

  it('reads ordinary documents in the sandbox as in the process', async () => {
    const pdf = { path: 'a.pdf', mimeType: 'application/pdf', content: await makePdf(['One page.', 'Two pages.']) };
    const docx = { path: 'a.docx', mimeType: '', content: await makeDocx([{ heading: 'Refunds', paragraphs: ['Within 30 days.'] }]) };
    for (const file of [pdf, docx]) assert.deepEqual(await extractInSandbox(file), await extractText(file));
  });

  it('kills a sandbox that passes its memory limit and says so; this process does not grow', async () => {
    const before = process.memoryUsage().rss;
    // With the bound lifted, PDF.js inflates the 600 MB page into one buffer: the sandbox's limit stops it.
    const e = await extractInSandbox({ path: 'bomb.pdf', mimeType: '', content: await pdfBomb(585) }, { maxInflatedBytes: Number.MAX_SAFE_INTEGER });
    assert.match(failure(e), /^reading it needed more than (512|1024) MB of memory, the extraction sandbox's limit$/);
    assert.ok(process.memoryUsage().rss - before < 128 * 1024 * 1024);
  });

  it('rejects with the signal reason when aborted, and kills the sandbox', async () => {
    const controller = new AbortController();
    const work = extractInSandbox({ path: 'bomb.pdf', mimeType: '', content: await pdfBomb(585) }, { maxInflatedBytes: Number.MAX_SAFE_INTEGER }, controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 300);
    await assert.rejects(work, /stop/);
  });
});
