import { randomBytes } from 'node:crypto';
import { randomToken } from '../domain/ids';

/** The keys an environment encrypts and signs with. */
interface EnvironmentKeys {
  URL_SIGNING_KEY: string;
  SECRETS_KEY: string;
  PAYLOAD_KEY: string;
}

export interface TestEnvironmentOptions {
  databaseUrl: string;
  temporalAddress: string;
  /** Keeps this environment's turns away from any other worker on the same Temporal server. */
  taskQueuePrefix?: string;
  /** Keys of another environment, for processes that must open what it stored; fresh ones where absent. */
  keys?: Partial<EnvironmentKeys>;
  logLevel: 'silent' | 'warn';
  /**
   * Every caller of a test is 127.0.0.1, and many use revoked or unknown credentials on purpose:
   * the per-address limits are lifted (each is tested with its own value elsewhere).
   */
  oneCallerAddress?: boolean;
  /** Added last: replaces any variable above. */
  extra?: Record<string, string>;
}

/**
 * The environment every API and worker of ours runs with in tests and benchmarks — the global
 * fixture's, a fault stack's, an isolated stack's: the database and Temporal given, keys, the
 * offline model (a machine with OPENAI_API_KEY set would otherwise make OpenAI the default).
 */
export function testEnvironment(opts: TestEnvironmentOptions): Record<string, string> {
  return {
    DATABASE_URL: opts.databaseUrl,
    TEMPORAL_ADDRESS: opts.temporalAddress,
    ...(opts.taskQueuePrefix === undefined ? {} : { TEMPORAL_TASK_QUEUE_PREFIX: opts.taskQueuePrefix }),
    URL_SIGNING_KEY: opts.keys?.URL_SIGNING_KEY ?? randomToken(40),
    SECRETS_KEY: opts.keys?.SECRETS_KEY ?? randomBytes(32).toString('base64'),
    // Temporal payloads are encrypted in every test, as production does.
    PAYLOAD_KEY: opts.keys?.PAYLOAD_KEY ?? randomBytes(32).toString('base64'),
    LOG_LEVEL: opts.logLevel,
    MODEL_STANDARD: 'local:offline',
    MODEL_PREMIUM: 'local:offline',
    // The limits themselves: refuse-before-work.test.ts and password-sign-in.test.ts.
    ...(opts.oneCallerAddress ? { AUTH_FAILURES_PER_ADDRESS: '1000000', SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000000' } : {}),
    ...opts.extra,
  };
}
