import type { Config } from '../../config/env';
import type { Logger } from '../logger';
import type * as Otel from './otel';
import type { Tracing } from './otel';

export type { Tracing };

/** Which process: its default service name is `hosted-agents-<process>` (`start` runs both: `hosted-agents`). */
export type TracedProcess = 'api' | 'worker' | 'start';

/**
 * Tracing is on when OTEL_EXPORTER_OTLP_ENDPOINT is set, and off otherwise at no cost: the
 * OpenTelemetry SDK is required only behind this switch (here, and in cli/runtime.ts the modules that
 * import it, given the `Tracing` this returns), so a process without the variable loads none of it
 * (docs/operations.md: Tracing, Start-up).
 */
export function startTracing(config: Config, process: TracedProcess, logger: Logger): Tracing | undefined {
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT === undefined) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startOtel } = require('./otel') as typeof Otel;
  return startOtel({ serviceName: config.OTEL_SERVICE_NAME ?? (process === 'start' ? 'hosted-agents' : `hosted-agents-${process}`), logger });
}
