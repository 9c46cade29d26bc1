import pino, { type Logger } from 'pino';
import { prettyLines } from './pretty-log';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

/**
 * Logs on stdout, one line an event: JSON for a log collector, or `pretty` lines for a person at a
 * terminal (`npm start`). Authorization headers and anything named like a secret are redacted
 * wherever they appear in a logged object, in both formats.
 */
export function createLogger(level: string, name = 'hosted-agents', format: LogFormat = 'json'): Logger {
  const options = {
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', '*.apiKey', '*.password', '*.secret', '*.secrets', 'apiKey'],
      censor: '[redacted]',
    },
  };
  return format === 'pretty' ? pino(options, prettyLines(process.stdout)) : pino(options);
}
