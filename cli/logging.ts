import type { Config } from '../config/env';
import { createLogger, type LogFormat, type Logger } from '../infra/logger';

/**
 * `npm start` runs at a person's terminal: warnings only, as readable lines, so its banner stays on
 * screen. `api` and `worker` run under a supervisor: every request, as JSON lines for a collector.
 * LOG_LEVEL and LOG_FORMAT, when set, win for every command.
 */
const DEFAULTS: Record<'start' | 'service', { level: string; format: LogFormat }> = {
  start: { level: 'warn', format: 'pretty' },
  service: { level: 'info', format: 'json' },
};

export function loggerFor(config: Pick<Config, 'LOG_LEVEL' | 'LOG_FORMAT'>, role: 'start' | 'service'): Logger {
  const d = DEFAULTS[role];
  return createLogger(config.LOG_LEVEL ?? d.level, 'hosted-agents', config.LOG_FORMAT ?? d.format);
}
