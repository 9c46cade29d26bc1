import type { LogLevel, LogMetadata } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger } from './logger';

let installed = false;

const toPino = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * Temporal's core runtime (and the worker) log through one process-wide logger: send it to our
 * JSON log so an operator has one stream. Activity failures that Temporal retries are logged as
 * warnings there. The AI SDK's own warnings (a process-wide global of the SDK) go there too.
 * Once per process: Runtime.install refuses a second call, and it must come before the first
 * Temporal connection. With `metricsAddress` (TEMPORAL_METRICS_ADDRESS) the Core runtime serves its
 * own Prometheus metrics there (`temporal_…`, seconds for durations); without it, none.
 */
export function installTemporalRuntime(logger: Logger, metricsAddress?: string): void {
  if (installed) return;
  installed = true;
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => logger[toPino[level]]({ ...meta, source: 'temporal' }, message);
  Runtime.install({
    logger: {
      log,
      trace: (m, meta) => log('TRACE', m, meta),
      debug: (m, meta) => log('DEBUG', m, meta),
      info: (m, meta) => log('INFO', m, meta),
      warn: (m, meta) => log('WARN', m, meta),
      error: (m, meta) => log('ERROR', m, meta),
    },
    ...(metricsAddress === undefined
      ? {}
      : { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress, countersTotalSuffix: true, useSecondsForDurations: true } } } }),
  });
  globalThis.AI_SDK_LOG_WARNINGS = (options) => logger.warn({ source: 'ai-sdk', warnings: options.warnings }, 'model provider warning');
}
