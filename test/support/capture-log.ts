import { Writable } from 'node:stream';
import pino from 'pino';
import type { Logger } from '../../infra/logger';

/** A logger at `trace` whose every line is kept, so a test can search what would have been logged. */
export function capturingLogger(): { logger: Logger; text: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, sink), text: () => lines.join('') };
}
