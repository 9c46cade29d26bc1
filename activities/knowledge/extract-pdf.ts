import { getResolvedPDFJS } from 'unpdf';
import type { ExtractedSection, ExtractionLimits } from './extract-support';
import { checkPdfBounds } from './pdf-bounds';
import { DeadlineExceeded, ExtractionFailure, timeLeft, within, type Deadline, type SectionsResult } from './extract-support';

/**
 * PDF text through unpdf's build of PDF.js (no native code, no worker thread, same parser as
 * Firefox). One section per page with text, location `page N`. Pages are read one at a time so
 * the time limit, the abort signal and the page and character limits are checked between pages.
 */

/** A text item as PDF.js gives it; marked-content items have no `str` and are skipped. */
interface TextItem {
  str: string;
  hasEOL: boolean;
  height: number;
  transform: number[];
}

export async function pdfSections(content: Uint8Array, limits: ExtractionLimits, deadline: Deadline): Promise<SectionsResult> {
  await within(checkPdfBounds(content, limits.maxInflatedBytes), deadline);
  const pdfjs = await within(getResolvedPDFJS(), deadline);
  const task = pdfjs.getDocument({
    // A copy: PDF.js may transfer (detach) the buffer it is given, and the caller still owns it.
    data: new Uint8Array(content),
    verbosity: 0,
    // Text needs no fonts loaded into a renderer, nor fonts of this machine.
    disableFontFace: true,
    useSystemFonts: false,
    // No code generated from the file's fonts (the path of CVE-2024-4367), sandbox or not.
    isEvalSupported: false,
  });
  const giveUp = () => void task.destroy().catch(() => undefined);
  try {
    const pdf = await within(task.promise, deadline, giveUp).catch((err: unknown) => {
      throw openFailure(err);
    });
    const total = pdf.numPages;
    const readable = Math.min(total, limits.maxPages);
    const sections: ExtractedSection[] = [];
    let chars = 0;
    let read = 0;
    for (let n = 1; n <= readable; n++) {
      deadline.signal?.throwIfAborted();
      const outOfTime = { sections, truncated: `only the first ${read} of ${total} pages were read within the ${deadline.ms / 1000} s time limit` };
      // Out of time with pages already read: keep them rather than lose everything.
      if (timeLeft(deadline) <= 0 && sections.length > 0) return outOfTime;
      let text: string;
      try {
        text = await readPage(pdf, n, deadline, giveUp);
      } catch (err) {
        if (err instanceof DeadlineExceeded && sections.length > 0) return outOfTime;
        throw err;
      }
      read = n;
      if (text) sections.push({ location: `page ${n}`, text });
      chars += text.length;
      // The character cap is applied by the caller; reading on would only waste time.
      if (chars > limits.maxChars) break;
    }
    if (sections.length === 0) throw new ExtractionFailure('the PDF has no text layer (scanned pages need OCR, which is not done)');
    return total > readable && read === readable ? { sections, truncated: `only the first ${readable} of ${total} pages were read` } : { sections };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

type PdfDocument = Awaited<ReturnType<Awaited<ReturnType<typeof getResolvedPDFJS>>['getDocument']>['promise']>;

async function readPage(pdf: PdfDocument, n: number, deadline: Deadline, giveUp: () => void): Promise<string> {
  const page = await within(pdf.getPage(n), deadline, giveUp);
  const content = await within(page.getTextContent(), deadline, giveUp);
  page.cleanup();
  return pageText(content.items.flatMap((i) => ('str' in i ? [{ str: i.str, hasEOL: i.hasEOL, height: i.height, transform: i.transform as number[] }] : [])));
}

/** PDF.js names its errors; these two deserve a sentence of their own. */
function openFailure(err: unknown): unknown {
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return new ExtractionFailure('the PDF is encrypted with a password, so its text cannot be read');
  if (name === 'InvalidPDFException') return new ExtractionFailure('the file is damaged or not really a PDF (its structure cannot be read)');
  return err;
}

/**
 * Joins a page's text items into lines and paragraphs. PDF has no paragraphs, only positioned
 * text: a line that wraps becomes a space (so sentences survive for the chunker), and a vertical
 * gap of more than about one and a half line heights becomes a blank line (a paragraph break).
 */
function pageText(items: TextItem[]): string {
  let out = '';
  let lineY: number | undefined;
  let lineHeight = 0;
  let newLine = false;
  for (const item of items) {
    const y = item.transform[5] ?? 0;
    if (newLine && item.str.trim()) {
      const gap = lineY === undefined ? 0 : Math.abs(lineY - y);
      if (gap > 1.6 * Math.max(lineHeight, 1)) out = `${out.trimEnd()}\n\n`;
      // A hyphen at the end of a line is kept as written and the line joined without a space.
      else if (!out.endsWith('-')) out = `${out.trimEnd()} `;
      newLine = false;
    }
    if (item.str.trim()) {
      lineY = y;
      lineHeight = item.height || Math.abs(item.transform[3] ?? 0);
    }
    out += item.str;
    if (item.hasEOL) newLine = true;
  }
  return out.replace(/[ \t]+/g, ' ').trim();
}
