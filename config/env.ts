import path from 'node:path';
import { z } from 'zod';

/**
 * Every environment variable the service reads, in one zod schema.
 * A bad value stops start-up with one line naming the variable (see `loadConfig`).
 * The README's "Environment variables" table mirrors this file.
 */

const port = z.coerce
  .number({ error: 'a port number (1–65535)' })
  .int('a port number (1–65535)')
  .min(1, 'a port number (1–65535)')
  .max(65535, 'a port number (1–65535)');
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));
const optionalUrl = z
  .url({ error: 'an absolute URL such as https://agents.example.com' })
  .optional()
  .or(z.literal('').transform(() => undefined));

export const envSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'one of fatal, error, warn, info, debug, trace, silent' })
    .default('info'),
  BODY_LIMIT_BYTES: z.coerce.number({ error: 'a number of bytes' }).int('a whole number of bytes').min(1024, 'at least 1024').default(10 * 1024 * 1024),
  PUBLIC_BASE_URL: optionalUrl,
  EMBED_BASE_URL: optionalUrl,

  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
      .optional(),
  ),
  DATABASE_POOL_MAX: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').max(500, 'at most 500').default(20),
  EMBEDDED_PG_PORT: port.default(54329),

  TEMPORAL_ADDRESS: optionalText,
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: optionalText,
  TEMPORAL_TLS: bool.default(false),
  TEMPORAL_TLS_CERT_PATH: optionalText,
  TEMPORAL_TLS_KEY_PATH: optionalText,
  TEMPORAL_TLS_CA_PATH: optionalText,
  TEMPORAL_TLS_SERVER_NAME: optionalText,
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_CLI_PATH: optionalText,
  TEMPORAL_CLI_DOWNLOAD: bool.default(true),
  TEMPORAL_TASK_QUEUE_PREFIX: z
    .string()
    .regex(/^[a-z0-9-]*$/, 'lower-case letters, digits and dashes')
    .default(''),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  /** Absolute data directory. */
  dataDir: string;
  /** The address clients use to reach the API. */
  baseURL: string;
  /** The address that serves the hosted chat page and embed script. */
  embedURL: string;
  taskQueues: { turns: string; ops: string };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly expectation: string,
  ) {
    super(`${variable}: ${expectation}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    const value = env[variable];
    throw new ConfigError(variable, `${issue?.message ?? 'invalid'} (got ${JSON.stringify(value)})`);
  }
  const e = parsed.data;
  if ((e.TEMPORAL_TLS_CERT_PATH === undefined) !== (e.TEMPORAL_TLS_KEY_PATH === undefined)) {
    throw new ConfigError('TEMPORAL_TLS_KEY_PATH', 'set together with TEMPORAL_TLS_CERT_PATH (mTLS needs both)');
  }
  const localHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  const baseURL = (e.PUBLIC_BASE_URL ?? `http://${localHost}:${e.PORT}`).replace(/\/$/, '');
  return {
    ...e,
    dataDir: path.resolve(e.DATA_DIR),
    baseURL,
    embedURL: (e.EMBED_BASE_URL ?? baseURL).replace(/\/$/, ''),
    taskQueues: {
      turns: `${e.TEMPORAL_TASK_QUEUE_PREFIX}turns`,
      ops: `${e.TEMPORAL_TASK_QUEUE_PREFIX}ops`,
    },
  };
}
