import { capText } from '../tools/limits';
import type { ToolResult } from '../tools/types';
import type { Extraction } from './extract';

/**
 * How `files.read` shows a document: each section under a marker line (`[page 2]`,
 * `[section "Refunds"]`) so the model can say where it read something, capped like any tool text.
 * A failed extraction is a failed read whose content says why, e.g.
 * `report.pdf: the PDF has no text layer (…)`.
 */
export function documentAsText(extraction: Extraction, path: string): ToolResult {
  if (!extraction.ok) return { ok: false, content: `${path}: ${extraction.reason}` };
  const body = extraction.sections.map((s) => (s.location ? `[${s.location}]\n${s.text}` : s.text)).join('\n\n');
  const note = extraction.truncated ? `\n\n[${extraction.truncated}]` : '';
  return { ok: true, content: capText(`${body}${note}`) };
}
