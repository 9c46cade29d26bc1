import { getResolvedPDFJS } from 'unpdf';
import { extractText, type Extraction } from './extract';
import type { ExtractionLimits } from './extract-support';

/**
 * The extraction sandbox's process (extract-sandbox.ts forks it, one a file): reads one request
 * from its parent, extracts, answers, exits. Everything a hostile file can cost — memory, CPU,
 * a crash of the parser — is spent here, under this process's heap limit and its parent's watch.
 * When the parent goes away (a killed worker) there is no one to answer: it exits at once.
 */
export interface ExtractionRequest {
  file: { path: string; mimeType: string; content: Uint8Array };
  limits: ExtractionLimits;
}

process.on('disconnect', () => process.exit(0));
// Loaded while it waits as the spare, so a file does not wait for PDF.js (extract-sandbox.ts).
void getResolvedPDFJS().catch(() => undefined);
process.once('message', (request: ExtractionRequest) => {
  void extractText(request.file, request.limits).then(
    (reply: Extraction) => process.send?.(reply, () => process.exit(0)),
    (err: unknown) => {
      const reply: Extraction = { ok: false, reason: `the file could not be read (${err instanceof Error ? err.message.slice(0, 200) : 'unknown error'})` };
      process.send?.(reply, () => process.exit(0));
    },
  );
});
