import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout, one line an event. Authorization headers and anything named
 * like a secret are redacted wherever they appear in a logged object.
 */
export function createLogger(level: string, name = 'hosted-agents'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', '*.apiKey', '*.password', '*.secret', '*.secrets', 'apiKey'],
      censor: '[redacted]',
    },
  });
}
