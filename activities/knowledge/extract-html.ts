import { HTMLElement, parse, TextNode, type Node } from 'node-html-parser';
import type { ExtractedSection } from './extract-support';
import type { SectionsResult } from './extract-support';

/**
 * HTML to sections with node-html-parser (pure JavaScript, tolerant of broken markup, no DOM
 * emulation to load). A heading h1–h6 starts a section `section "Heading"` whose text begins with
 * the heading; text before the first heading has location ''. Block elements become paragraph
 * breaks (a blank line) and list items, table rows and <br> line breaks, so the chunker finds the
 * paragraphs. DOCX goes through here too, after mammoth turns it into HTML.
 */

/** Elements whose content is never text for a reader. */
const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'math', 'iframe', 'object', 'canvas']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const PARAGRAPH_BLOCKS = new Set([
  'p', 'div', 'section', 'article', 'main', 'header', 'footer', 'nav', 'aside', 'blockquote', 'pre', 'ul', 'ol', 'dl',
  'table', 'thead', 'tbody', 'tfoot', 'figure', 'figcaption', 'form', 'fieldset', 'address', 'details', 'summary', 'hr', 'caption',
]);
const LINE_BLOCKS = new Set(['li', 'tr', 'dt', 'dd', 'br', 'option']);
const CELLS = new Set(['td', 'th']);

export function htmlSections(html: string): SectionsResult {
  const root = parse(html, { comment: false, blockTextElements: { script: true, style: true, noscript: true, pre: true } });
  const out = new SectionWriter();
  walk(root, out, false);
  return { sections: out.finish() };
}

function walk(node: Node, out: SectionWriter, inPre: boolean): void {
  if (node instanceof TextNode) {
    out.text(node.text, inPre);
    return;
  }
  if (!(node instanceof HTMLElement)) return;
  const tag = node.rawTagName?.toLowerCase() ?? '';
  if (DROPPED.has(tag)) return;
  if (HEADINGS.has(tag)) {
    out.heading(node.text);
    return;
  }
  const paragraph = PARAGRAPH_BLOCKS.has(tag);
  const line = LINE_BLOCKS.has(tag);
  if (paragraph) out.paragraphBreak();
  else if (line) out.lineBreak();
  if (CELLS.has(tag)) out.cell();
  for (const child of node.childNodes) walk(child, out, inPre || tag === 'pre');
  if (paragraph) out.paragraphBreak();
  else if (line) out.lineBreak();
}

/** Collects lines into paragraphs and paragraphs into sections. */
class SectionWriter {
  private sections: ExtractedSection[] = [];
  private location = '';
  private title: string | undefined;
  private paragraphs: string[] = [];
  private lines: string[] = [];
  private line = '';

  text(raw: string, keepLines: boolean): void {
    if (keepLines) {
      const parts = raw.split('\n');
      parts.forEach((part, i) => {
        if (i > 0) this.lineBreak();
        this.line += part;
      });
      return;
    }
    const collapsed = raw.replace(/\s+/g, ' ');
    // Leading space of a line is layout, not content.
    this.line += this.line === '' ? collapsed.trimStart() : collapsed;
  }

  /** A table cell after the first in its row is set off by ' | '. */
  cell(): void {
    if (this.line.trim()) this.line = `${this.line.trimEnd()} | `;
  }

  lineBreak(): void {
    const line = this.line.replace(/[ \t]+/g, ' ').trim();
    if (line) this.lines.push(line);
    this.line = '';
  }

  paragraphBreak(): void {
    this.lineBreak();
    if (this.lines.length) this.paragraphs.push(this.lines.join('\n'));
    this.lines = [];
  }

  heading(raw: string): void {
    this.endSection();
    const title = raw.replace(/\s+/g, ' ').trim();
    this.location = title ? `section "${title}"` : '';
    this.title = title || undefined;
    if (title) this.paragraphs.push(title);
  }

  finish(): ExtractedSection[] {
    this.endSection();
    return this.sections;
  }

  /** A section that holds only its heading (say, "Policies" right above "Refunds") adds no text worth indexing, so it is dropped. */
  private endSection(): void {
    this.paragraphBreak();
    const body = this.title === undefined ? this.paragraphs : this.paragraphs.slice(1);
    if (body.length) this.sections.push({ location: this.location, text: this.paragraphs.join('\n\n') });
    this.paragraphs = [];
    this.title = undefined;
  }
}
