import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { ExtractionFailure } from './extract-support';

/** What a DOCX may hold before mammoth is let near it (ExtractionLimits, docs/knowledge.md). */
export interface DocxBounds {
  /** Zip entries in all. */
  maxEntries: number;
  /** Bytes the parts mammoth reads (everything but word/media/) may inflate to, together. */
  maxUnzippedBytes: number;
  /** `<w:p>` paragraphs in word/document.xml. */
  maxParagraphs: number;
}

const MB = 1024 * 1024;

/**
 * Reads the zip's directory and inflates each part mammoth would read, counting, before mammoth
 * builds anything: a bomb (a few hundred KB that inflate to hundreds of MB, or millions of empty
 * paragraphs) is refused with the bound it passed, having held one 64 KB chunk at a time. The
 * declared sizes are checked first (cheap), then the real ones (a zip may lie about them; yauzl's
 * `validateEntrySizes` also stops a part that inflates past what it declared). Images under
 * word/media/ are skipped: mammoth is told to drop them and never inflates them.
 */
export async function checkDocxBounds(content: Uint8Array, bounds: DocxBounds): Promise<void> {
  const zip = await openZip(content);
  try {
    if (zip.entryCount > bounds.maxEntries) {
      throw new ExtractionFailure(`the DOCX document has ${zip.entryCount} zip entries, more than the ${bounds.maxEntries} allowed`);
    }
    let expanded = 0;
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      if (entry.fileName.endsWith('/') || entry.fileName.startsWith('word/media/')) continue;
      if (expanded + entry.uncompressedSize > bounds.maxUnzippedBytes) throw tooLarge(bounds);
      const stream = await openEntry(zip, entry);
      const counted = await countEntry(stream, {
        room: bounds.maxUnzippedBytes - expanded,
        countParagraphs: entry.fileName === 'word/document.xml',
        maxParagraphs: bounds.maxParagraphs,
      });
      if (counted === 'too-large') throw tooLarge(bounds);
      if (counted === 'too-many-paragraphs') {
        throw new ExtractionFailure(`the DOCX document has more than ${bounds.maxParagraphs} paragraphs`);
      }
      expanded += counted;
    }
  } finally {
    zip.close();
  }
}

const tooLarge = (bounds: DocxBounds) =>
  new ExtractionFailure(`the DOCX document expands past ${Math.round(bounds.maxUnzippedBytes / MB)} MB when unzipped`);

function openZip(content: Uint8Array): Promise<ZipFile> {
  const buffer = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (err, zip) => {
      if (err || !zip) reject(new ExtractionFailure('the file is damaged or not really a DOCX document (it is not a readable Word zip)'));
      else resolve(zip);
    });
  });
}

/** The next entry of the directory, or undefined at its end. */
function nextEntry(zip: ZipFile): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: Entry) => done(() => resolve(entry));
    const onEnd = () => done(() => resolve(undefined));
    const onError = () => done(() => reject(new ExtractionFailure('the file is damaged or not really a DOCX document (its zip directory cannot be read)')));
    const done = (then: () => void) => {
      zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
      then();
    };
    zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
    zip.readEntry();
  });
}

function openEntry(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) reject(new ExtractionFailure(`the DOCX document's part ${entry.fileName.slice(0, 100)} cannot be read`));
      else resolve(stream);
    });
  });
}

/**
 * Inflates one part without keeping it: its byte count, or which bound it passed. Paragraphs are
 * counted by their opening tag (`<w:p>` or `<w:p ` — not `<w:pPr>`), across chunk boundaries.
 */
function countEntry(stream: Readable, opts: { room: number; countParagraphs: boolean; maxParagraphs: number }): Promise<number | 'too-large' | 'too-many-paragraphs'> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let paragraphs = 0;
    let tail = '';
    const stop = (result: 'too-large' | 'too-many-paragraphs') => {
      stream.destroy();
      resolve(result);
    };
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (bytes > opts.room) return stop('too-large');
      if (!opts.countParagraphs) return;
      const text = tail + chunk.toString('latin1');
      paragraphs += text.match(PARAGRAPH_TAG)?.length ?? 0;
      // Keep the last few characters: a tag split between two chunks is counted once, in the next.
      const cut = Math.max(text.length - 5, 0);
      tail = text.slice(cut);
      paragraphs -= tail.match(PARAGRAPH_TAG)?.length ?? 0;
      if (paragraphs > opts.maxParagraphs) stop('too-many-paragraphs');
    });
    stream.on('end', () => resolve(bytes));
    stream.on('error', (err) => {
      // yauzl's size validation: the part inflated past what the directory declared.
      if (/too many bytes|expected \d+/i.test(err.message)) resolve('too-large');
      else reject(new ExtractionFailure('the file is damaged or not really a DOCX document (a part of it cannot be unzipped)'));
    });
  });
}

const PARAGRAPH_TAG = /<w:p[\s>/]/g;
