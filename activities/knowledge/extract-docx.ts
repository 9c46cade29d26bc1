import mammoth from 'mammoth';
import { checkDocxBounds } from './docx-bounds';
import type { ExtractionLimits } from './extract-support';
import { htmlSections } from './extract-html';
import { ExtractionFailure, within, type Deadline, type SectionsResult } from './extract-support';

/**
 * DOCX through mammoth: it maps Word's heading styles to h1–h6 and paragraphs to <p>, which is
 * what the HTML reader splits on, so DOCX and HTML sections behave the same. Images are dropped
 * (mammoth would otherwise inline them as base64, megabytes of non-text).
 */
const noImages = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));

export async function docxSections(content: Uint8Array, limits: ExtractionLimits, deadline: Deadline): Promise<SectionsResult> {
  await within(checkDocxBounds(content, { maxEntries: limits.maxZipEntries, maxUnzippedBytes: limits.maxUnzippedBytes, maxParagraphs: limits.maxParagraphs }), deadline);
  const work = mammoth.convertToHtml({ buffer: Buffer.from(content.buffer, content.byteOffset, content.byteLength) }, { convertImage: noImages });
  const result = await within(work, deadline).catch((err: unknown) => {
    if (err instanceof ExtractionFailure || deadline.signal?.aborted) throw err;
    // mammoth reports a bad zip or a missing word/document.xml in its own words; say what it means.
    throw new ExtractionFailure('the file is damaged or not really a DOCX document (it is not a readable Word zip)');
  });
  return htmlSections(result.value);
}
