import type { Config } from '../../config/env';
import { ConfigError } from '../../config/env';
import { SECRETS_KEY_FORMAT } from '../../domain/secret-box';
import type { Logger } from '../../infra/logger';
import { startTracing, type Tracing } from '../../infra/tracing/switch';
import { runApi, runWorker, type Stoppable } from '../runtime';
import type { Say } from '../backing-services';
import { stopOnSignals, stopOnUnexpectedErrors } from '../shutdown';

/** Production processes run against an existing database and cluster; nothing is started for them. */
function requireRemote(config: Config, command: string): { databaseUrl: string; temporalAddress: string } {
  if (!config.DATABASE_URL) throw new ConfigError('DATABASE_URL', `required by \`hosted-agents ${command}\` (npm start runs the embedded default)`);
  if (!config.TEMPORAL_ADDRESS) throw new ConfigError('TEMPORAL_ADDRESS', `required by \`hosted-agents ${command}\` (host:port of the Temporal frontend)`);
  // Every API replica and worker needs the same key: secret values are encrypted with it.
  if (!config.SECRETS_KEY) {
    throw new ConfigError('SECRETS_KEY', `required by \`hosted-agents ${command}\`: ${SECRETS_KEY_FORMAT}, the same on every replica`);
  }
  // Conversation content must not reach Temporal's history in plain text (infra/payload-codec.ts).
  if (!config.PAYLOAD_KEY) {
    throw new ConfigError('PAYLOAD_KEY', `required by \`hosted-agents ${command}\`: ${SECRETS_KEY_FORMAT}, the same on every replica and worker`);
  }
  return { databaseUrl: config.DATABASE_URL, temporalAddress: config.TEMPORAL_ADDRESS };
}

/**
 * Runs one part of the service (`api` or `worker`) with its tracing: SIGTERM/SIGINT or an error
 * nothing handled stops it, and then flushes the spans still buffered (the last are the shutdown's).
 */
async function serve<T extends Stoppable>(
  config: Config,
  logger: Logger,
  say: Say,
  part: 'api' | 'worker',
  run: (opts: { config: Config; logger: Logger; tracing?: Tracing; databaseUrl: string; temporalAddress: string }) => Promise<T>,
): Promise<T> {
  const remote = requireRemote(config, part);
  const tracing = startTracing(config, part, logger);
  const running = await run({ config, logger, tracing, ...remote });
  const stop = async () => {
    try {
      await running.stop();
    } finally {
      await tracing?.shutdown();
    }
  };
  stopOnSignals(stop, say);
  stopOnUnexpectedErrors(stop, (err, what) => logger.fatal({ err }, `${what}: stopping the ${part === 'api' ? 'API' : 'worker'}`));
  return running;
}

/** `hosted-agents api`: the stateless HTTP tier; scale it horizontally. */
export async function apiCommand(config: Config, logger: Logger, say: Say): Promise<void> {
  const api = await serve(config, logger, say, 'api', runApi);
  say(`API listening on ${config.HOST}:${api.port}`);
}

/** `hosted-agents worker`: polls the `turns` and `ops` task queues; scale it horizontally. */
export async function workerCommand(config: Config, logger: Logger, say: Say): Promise<void> {
  await serve(config, logger, say, 'worker', runWorker);
  say(`worker polling ${config.taskQueues.turns} and ${config.taskQueues.ops} on ${config.TEMPORAL_ADDRESS}`);
}
