import type { ExtractedSection } from './extract-support';

/**
 * Sections into chunks: the pieces that are embedded and searched. See docs/knowledge.md, "Chunks".
 *
 * - A chunk never spans two sections, so its location (page, heading, rows) is exact.
 * - Whole paragraphs (split on blank lines) are packed up to the target size.
 * - A paragraph over the maximum is split between sentences (Intl.Segmenter, the ICU rules built
 *   into Node); a sentence over the maximum between words (Intl.Segmenter again, which also
 *   handles languages written without spaces); a single "word" over the maximum is cut.
 */

export interface Chunk {
  /** 0-based order in the file */
  ord: number;
  location: string;
  text: string;
}

/** ~250 tokens: small enough that a hit is specific, large enough to hold a full thought. */
export const CHUNK_TARGET_CHARS = 1000;
/** The hard ceiling, for paragraphs and sentences that cannot be split near the target. */
export const CHUNK_MAX_CHARS = 1500;

/** A repeated heading takes at most this share of the maximum, so a huge "heading" leaves room for text. */
const HEADING_SHARE = 0.25;

const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const words = new Intl.Segmenter(undefined, { granularity: 'word' });

export function chunkSections(sections: ExtractedSection[], options: { targetChars?: number; maxChars?: number } = {}): Chunk[] {
  const max = Math.max(Math.floor(options.maxChars ?? CHUNK_MAX_CHARS), 20);
  const target = Math.min(Math.max(Math.floor(options.targetChars ?? CHUNK_TARGET_CHARS), 1), max);
  const chunks: Chunk[] = [];
  for (const section of sections) {
    for (const text of chunkSection(section, target, max)) chunks.push({ ord: chunks.length, location: section.location, text });
  }
  return chunks;
}

function chunkSection(section: ExtractedSection, target: number, max: number): string[] {
  const paragraphs = normalise(section.text);
  if (paragraphs.length === 0) return [];
  // Every chunk carries its context: a chunk after the first of a headed section (or of a CSV
  // slice) starts with the heading (or the header row) again, because a chunk is retrieved and
  // read on its own. Its length is reserved up front, so no chunk passes the maximum.
  const carried = section.location.startsWith('section') || section.location.startsWith('row');
  const head = carried ? cut(paragraphs[0]?.split('\n')[0] ?? '', Math.floor(max * HEADING_SHARE)) : '';
  // A CSV header stays on the line above its rows, as in the file; a heading is a paragraph of its own.
  const prefix = head ? `${head}${section.location.startsWith('row') ? '\n' : '\n\n'}` : '';
  const room = max - prefix.length;
  const pieces = paragraphs.flatMap((p) => (p.length <= room ? [p] : splitParagraph(p, Math.min(target, room), room)));
  const packed = pack(pieces, Math.min(target, room), '\n\n');
  return packed.map((text, i) => (i > 0 && prefix && !text.startsWith(head) ? `${prefix}${text}` : text));
}

/** Paragraphs with runs of spaces collapsed and lines trimmed; line breaks inside a paragraph stay. */
function normalise(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t\f\v\u00a0]*\n\s*/)
    .map((p) =>
      p
        .split('\n')
        .map((line) => line.replace(/[^\S\n]+/g, ' ').trim())
        .filter((line) => line !== '')
        .join('\n'),
    )
    .filter((p) => p !== '');
}

/** A paragraph over the room: sentences packed up to the target; a sentence over the room, by words. */
function splitParagraph(paragraph: string, target: number, room: number): string[] {
  // Segments keep their trailing space or line break, so joining them restores the paragraph.
  const parts = [...sentences.segment(paragraph)].map((s) => s.segment);
  const pieces = parts.flatMap((s) => (s.trim().length <= room ? [s] : splitSentence(s, room)));
  return pack(pieces, target, '');
}

/** Word segments packed up to the room; a single segment over the room is cut (never splitting a surrogate pair). */
function splitSentence(sentence: string, room: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const { segment } of words.segment(sentence)) {
    if (current.length + segment.length <= room || !segment.trim()) {
      current += segment;
      continue;
    }
    if (current.trim()) out.push(current);
    current = '';
    let rest = segment;
    while (rest.length > room) {
      const piece = cut(rest, room);
      out.push(piece);
      rest = rest.slice(piece.length);
    }
    current = rest;
  }
  if (current.trim()) out.push(current);
  return out;
}

/**
 * Greedy packing: a piece joins the current chunk while the chunk stays within the target.
 * Pieces are trimmed when a chunk is closed, not before, so spaces between sentences survive.
 */
function pack(pieces: string[], target: number, separator: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const piece of pieces) {
    const joined = current + separator + piece;
    if (current.trim() && joined.trim().length <= target) current = joined;
    else {
      if (current.trim()) out.push(current.trim());
      current = piece;
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** The first `max` characters, one fewer when that would split a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
