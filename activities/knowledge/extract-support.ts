
export interface ExtractedSection {
  /** Where this text is, for citations: 'page 3' (PDF), 'section "Refunds"' (DOCX/HTML/Markdown heading; '' before the first heading), 'rows 2–41' (CSV), '' for plain text. */
  location: string;
  text: string;
}

export interface ExtractionLimits {
  maxBytes: number;
  maxPages: number;
  timeMs: number;
  maxChars: number;
  /** What a DOCX's parts (all but its images) may unzip to, together. */
  maxUnzippedBytes: number;
  /** What a PDF's streams (all but its images) may inflate to, together. */
  maxInflatedBytes: number;
  /** Zip entries of a DOCX. */
  maxZipEntries: number;
  /** Paragraphs of a DOCX's main document. */
  maxParagraphs: number;
}

/** What a format's reader hands back before the character cap is applied. */
export interface SectionsResult {
  sections: ExtractedSection[];
  truncated?: string;
}

/** A known reason a file gave no text; its message is the one sentence the person sees. */
export class ExtractionFailure extends Error {
  override name = 'ExtractionFailure';
}

/** The time limit ran out while a library call was still working. */
export class DeadlineExceeded extends ExtractionFailure {
  override name = 'DeadlineExceeded';
}

/** When extraction must stop, and the caller's signal. */
export interface Deadline {
  at: number;
  ms: number;
  signal?: AbortSignal;
}

export function timeLeft(deadline: Deadline): number {
  return deadline.at - Date.now();
}

/**
 * Waits for a library call, but no longer than the deadline and not past an abort. The library's
 * work is not stopped by this (`onGiveUp` lets the caller release what it can); what it buys is
 * that the activity answers in time. An abort rejects with the signal's reason.
 */
export async function within<T>(work: Promise<T>, deadline: Deadline, onGiveUp?: () => void): Promise<T> {
  deadline.signal?.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(`reading the file took longer than ${deadline.ms / 1000} s`)), Math.max(timeLeft(deadline), 0));
    onAbort = () => reject(deadline.signal?.reason);
    deadline.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, stop]);
  } catch (err) {
    onGiveUp?.();
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) deadline.signal?.removeEventListener('abort', onAbort);
    // The loser of the race may still reject later; that is expected and must not be unhandled.
    work.catch(() => undefined);
  }
}
