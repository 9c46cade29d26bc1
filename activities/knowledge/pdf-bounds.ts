import { constants, createInflate } from 'node:zlib';
import { ExtractionFailure } from './extract-support';

const MB = 1024 * 1024;
const STREAM = Buffer.from('stream');
/** How far back from a `stream` keyword its dictionary is looked for (`/Subtype /Image`). */
const DICT_LOOKBACK = 4096;

/**
 * Inflates every Flate stream of the file, counting and keeping nothing, before PDF.js parses it:
 * PDF.js inflates a content stream whole, into one growing buffer, so a 2 MB file whose one page
 * inflates to 600 MB would take that much memory. Found by their `stream` keyword rather than by
 * parsing objects, which is what a hostile file would lie about; a stream that is not zlib data
 * (a JPEG, another filter, a false match) ends at once and counts nothing. Image streams are
 * skipped: reading text never decodes them.
 */
export async function checkPdfBounds(content: Uint8Array, maxInflatedBytes: number): Promise<void> {
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  let total = 0;
  for (let at = bytes.indexOf(STREAM); at !== -1; at = bytes.indexOf(STREAM, at + STREAM.length)) {
    const start = dataStart(bytes, at);
    if (start === undefined || isImage(bytes, at)) continue;
    total += await inflatedSize(bytes.subarray(start), maxInflatedBytes - total + 1);
    if (total > maxInflatedBytes) throw new ExtractionFailure(`the PDF expands past ${Math.round(maxInflatedBytes / MB)} MB when its streams are inflated`);
  }
}

/** Where a stream's data begins: after `stream` and its end of line; undefined for `endstream` and other words. */
function dataStart(bytes: Buffer, at: number): number | undefined {
  if (at >= 3 && bytes.toString('latin1', at - 3, at) === 'end') return undefined;
  let i = at + STREAM.length;
  if (bytes[i] === 0x0d) i++;
  if (bytes[i] !== 0x0a && bytes[i - 1] !== 0x0d) return undefined;
  return bytes[i] === 0x0a ? i + 1 : i;
}

/** True when the stream's dictionary (since the last `obj`) says it is an image. */
function isImage(bytes: Buffer, at: number): boolean {
  const from = Math.max(0, at - DICT_LOOKBACK);
  const before = bytes.toString('latin1', from, at);
  const dict = before.slice(before.lastIndexOf('obj') + 1);
  return /\/Subtype\s*\/Image\b/.test(dict);
}

/** The size `data` inflates to as a zlib stream, counted up to `limit` (then it stops); 0 when it is not zlib data. */
function inflatedSize(data: Buffer, limit: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
    let size = 0;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      inflate.destroy();
      resolve(size);
    };
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size >= limit) settle();
    });
    // Not zlib data, or a damaged stream: what was inflated so far is what PDF.js could get too.
    inflate.on('error', settle);
    inflate.on('end', settle);
    inflate.end(data);
  });
}
