import type { ExtractedSection } from './extract-support';
import type { SectionsResult } from './extract-support';

/**
 * Markdown split at ATX headings (`#` to `######`); a `#` line inside a fenced code block
 * (``` or ~~~) is code, not a heading. Setext headings (a line underlined with === or ---) are not
 * recognised: they are rare in knowledge files and `---` is more often a rule. The text is kept as
 * written, heading line included, so the chunker and the model see the original Markdown.
 */
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function markdownSections(markdown: string): SectionsResult {
  const sections: ExtractedSection[] = [];
  let location = '';
  let lines: string[] = [];
  let hasBody = false;
  let fence: string | undefined;
  const end = () => {
    if (hasBody) sections.push({ location, text: lines.join('\n').trim() });
  };
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const f = FENCE.exec(line)?.[1];
    if (f && fence === undefined) fence = f;
    // A fence closes with the same character, at least as long as it opened.
    else if (f && fence !== undefined && f[0] === fence[0] && f.length >= fence.length && line.trim() === f) fence = undefined;
    const heading = fence === undefined && !f ? ATX.exec(line) : null;
    if (heading) {
      end();
      const title = (heading[2] ?? '').trim();
      location = title ? `section "${title}"` : '';
      lines = [line.trim()];
      hasBody = false;
      continue;
    }
    lines.push(line);
    if (line.trim()) hasBody = true;
  }
  end();
  return { sections };
}
