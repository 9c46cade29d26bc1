import { ApplicationFailureCategory, type LogLevel, type LogMetadata } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger } from './logger';

let installed = false;

const toPino = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * A run that ended with a BENIGN failure (a refused promotion) ended as expected: the SDK logs it as
 * a warning, we at debug, as the SDK does for a BENIGN activity failure. The category is added to
 * the line by workflows/failure-log-interceptors.ts.
 */
const isExpectedEnd = (message: string, meta: LogMetadata) => message === 'Workflow failed' && meta.failureCategory === ApplicationFailureCategory.BENIGN;

/**
 * Temporal's core runtime (and the worker) log through one process-wide logger: send it to our
 * JSON log so an operator has one stream. Activity failures that Temporal retries are logged as
 * warnings there, and failed runs (their error under `err`). The AI SDK's own warnings (a
 * process-wide global of the SDK) go there too. Once per process: Runtime.install refuses a second
 * call, and it must come before the first Temporal connection. With `metricsAddress`
 * (TEMPORAL_METRICS_ADDRESS) the Core runtime serves its own Prometheus metrics there
 * (`temporal_…`, seconds for durations); without it, none.
 */
export function installTemporalRuntime(logger: Logger, metricsAddress?: string): void {
  if (installed) return;
  installed = true;
  const log = (level: LogLevel, message: string, meta: LogMetadata = {}) => {
    // pino serializes an Error under `err` (message, stack); under the SDK's `error` it prints `{}`.
    const { error, ...rest } = meta;
    const fields = { ...rest, ...(error === undefined ? {} : { err: error }), source: 'temporal' };
    logger[isExpectedEnd(message, rest) ? 'debug' : toPino[level]](fields, message);
  };
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
