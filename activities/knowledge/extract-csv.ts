import type { ExtractedSection } from './extract-support';
import type { SectionsResult } from './extract-support';

/**
 * CSV in sections of at most 50 data rows, location `rows a–b` (1-based data rows, the header not
 * counted; `row a` for a section of one). Each section's text starts with the header line, so a
 * chunk read on its own still says what the columns are. Records are split on line ends outside
 * quotes, so a quoted field may hold line breaks; fields themselves are kept as written.
 */
const CSV_ROWS_PER_SECTION = 50;

export function csvSections(csv: string): SectionsResult {
  const records = splitRecords(csv).filter((r) => r.trim() !== '');
  const [header, ...rows] = records;
  if (header === undefined) return { sections: [] };
  const sections: ExtractedSection[] = [];
  for (let i = 0; i < rows.length; i += CSV_ROWS_PER_SECTION) {
    const slice = rows.slice(i, i + CSV_ROWS_PER_SECTION);
    const first = i + 1;
    const last = i + slice.length;
    sections.push({ location: first === last ? `row ${first}` : `rows ${first}–${last}`, text: [header, ...slice].join('\n') });
  }
  // A file with only a header still has text: the column names.
  if (sections.length === 0) sections.push({ location: '', text: header });
  return { sections };
}

/** Records as raw text: a line end inside double quotes belongs to the field. */
function splitRecords(csv: string): string[] {
  const records: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\n' && !quoted) {
      records.push(csv.slice(start, i).replace(/\r$/, ''));
      start = i + 1;
    }
  }
  records.push(csv.slice(start).replace(/\r$/, ''));
  return records;
}
