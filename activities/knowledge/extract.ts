import { extname } from 'node:path';
import { MAX_FILE_BYTES } from '../../domain/file-path';
import { looksLikeText } from '../../domain/mime';
import { csvSections } from './extract-csv';
import { docxSections } from './extract-docx';
import { htmlSections } from './extract-html';
import { markdownSections } from './extract-markdown';
import { pdfSections } from './extract-pdf';
import { ExtractionFailure, type Deadline, type ExtractedSection, type ExtractionLimits, type SectionsResult } from './extract-support';

/**
 * Documents in, text out: a file's bytes become sections of plain text, each with the place it
 * came from, for citations. See docs/knowledge.md, "Documents in, text out". The types every
 * format's reader shares (sections, limits) are in extract-support.ts, which the readers import.
 */

const MB = 1024 * 1024;

/**
 * - `maxBytes` 25 MiB: the largest file a drive or knowledge space stores (MAX_FILE_BYTES), so
 *   every stored file is at least attempted.
 * - `maxPages` 500: a long manual or annual report; beyond it the first 500 pages are read.
 * - `timeMs` 20 s: PDF parsing is CPU work on the activity worker; a pathological file must not
 *   hold a worker slot for minutes. Checked between PDF pages and around library calls.
 * - `maxChars` 2 000 000: about 500 000 tokens, ~2 000 chunks — what one file may add to an index.
 * - `maxUnzippedBytes` 32 MiB: a DOCX's XML, which mammoth holds as a tree of about 15 times its
 *   size (12 MB of XML took 172 MB of heap): 32 MiB fits the sandbox's heap, and holds some 5
 *   million words, about 10 000 pages. Images (word/media/) are not counted: they are dropped.
 * - `maxInflatedBytes` 128 MiB: a PDF's streams (pages and fonts; images are not counted, reading
 *   text never decodes them): 500 text pages come to a few tens of MB, and PDF.js holds one page's
 *   streams at a time;
 *   `maxZipEntries` 10 000 and `maxParagraphs` 200 000 (a 2 000-page document has ~60 000).
 *   They are checked by inflating and counting before the library parses anything
 *   (docx-bounds.ts, pdf-bounds.ts); what slips past them meets the sandbox's memory limit.
 */
export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = {
  maxBytes: MAX_FILE_BYTES,
  maxPages: 500,
  timeMs: 20_000,
  maxChars: 2_000_000,
  maxUnzippedBytes: 32 * MB,
  maxInflatedBytes: 128 * MB,
  maxZipEntries: 10_000,
  maxParagraphs: 200_000,
};

export type Extraction =
  | {
      ok: true;
      format: 'pdf' | 'docx' | 'html' | 'markdown' | 'csv' | 'text';
      sections: ExtractedSection[];
      /** set when a limit cut the text: says which and where */
      truncated?: string;
    }
  | {
      ok: false;
      /** one sentence for a person: why no text came out (corrupt PDF, encrypted, over the page limit...) */
      reason: string;
      /** true when the type simply holds no text we extract (image, zip...) */
      unsupported?: boolean;
    };

type Format = Extract<Extraction, { ok: true }>['format'];

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The format by mime type first (as detectMimeType gave it), then by extension, then by content. */
export function documentFormat(file: { path: string; mimeType: string; content: Uint8Array }): Format | undefined {
  const mime = file.mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  const ext = extname(file.path).toLowerCase();
  if (mime === 'application/pdf' || ext === '.pdf') return 'pdf';
  if (mime === DOCX_MIME || ext === '.docx') return 'docx';
  if (mime === 'text/html' || mime === 'application/xhtml+xml' || ext === '.html' || ext === '.htm' || ext === '.xhtml') return 'html';
  if (mime === 'text/markdown' || mime === 'text/x-markdown' || ext === '.md' || ext === '.markdown') return 'markdown';
  if (mime === 'text/csv' || ext === '.csv') return 'csv';
  if (mime.startsWith('text/') || looksLikeText(file.content)) return 'text';
  return undefined;
}

export async function extractText(
  file: { path: string; mimeType: string; content: Uint8Array },
  limits?: Partial<ExtractionLimits>,
  signal?: AbortSignal,
): Promise<Extraction> {
  signal?.throwIfAborted();
  const l = { ...DEFAULT_EXTRACTION_LIMITS, ...limits };
  const format = documentFormat(file);
  if (!format) return { ok: false, unsupported: true, reason: `${file.mimeType} files hold no text that can be extracted` };
  if (file.content.byteLength > l.maxBytes) {
    return { ok: false, reason: `the file is ${file.content.byteLength} bytes, over the ${l.maxBytes}-byte limit for text extraction` };
  }
  const deadline: Deadline = { at: Date.now() + l.timeMs, ms: l.timeMs, ...(signal ? { signal } : {}) };
  let result: SectionsResult;
  try {
    result = await sectionsOf(format, file.content, l, deadline);
  } catch (err) {
    // An abort is the caller's decision, not a property of the file: it rejects as the signal says.
    signal?.throwIfAborted();
    if (err instanceof ExtractionFailure) return { ok: false, reason: err.message };
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, reason: `the ${FORMAT_NAMES[format]} could not be read (${detail.slice(0, 200)})` };
  }
  return capChars(format, result, l.maxChars);
}

const FORMAT_NAMES: Record<Format, string> = {
  pdf: 'PDF',
  docx: 'DOCX document',
  html: 'HTML page',
  markdown: 'Markdown file',
  csv: 'CSV file',
  text: 'text file',
};

function sectionsOf(format: Format, content: Uint8Array, limits: ExtractionLimits, deadline: Deadline): Promise<SectionsResult> | SectionsResult {
  switch (format) {
    case 'pdf':
      return pdfSections(content, limits, deadline);
    case 'docx':
      return docxSections(content, limits, deadline);
    case 'html':
      return htmlSections(decode(content));
    case 'markdown':
      return markdownSections(decode(content));
    case 'csv':
      return csvSections(decode(content));
    case 'text': {
      const text = decode(content);
      return { sections: text.trim() ? [{ location: '', text }] : [] };
    }
    default: {
      const never: never = format;
      throw new Error(`unknown format ${String(never)}`);
    }
  }
}

/** UTF-8 without throwing: a stray invalid byte in a text file becomes U+FFFD, the rest still reads. */
function decode(content: Uint8Array): string {
  return new TextDecoder('utf-8').decode(content);
}

/** Keeps the first `maxChars` characters of the text, so one huge file cannot flood an index. */
function capChars(format: Format, result: SectionsResult, maxChars: number): Extraction {
  const sections: ExtractedSection[] = [];
  let used = 0;
  let cut: string | undefined;
  for (const s of result.sections) {
    if (used + s.text.length <= maxChars) {
      sections.push(s);
      used += s.text.length;
      continue;
    }
    let end = maxChars - used;
    // Never split a surrogate pair.
    const code = s.text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    if (end > 0) sections.push({ location: s.location, text: s.text.slice(0, end) });
    cut = `only the first ${maxChars} characters were kept (the text stops in ${s.location || 'the file'})`;
    break;
  }
  const truncated = [result.truncated, cut].filter(Boolean).join('; ');
  return { ok: true, format, sections, ...(truncated ? { truncated } : {}) };
}
