/** Base URL used when neither the `baseURL` option nor `SERVICE_BASE_URL` is set. */
export const DEFAULT_BASE_URL = 'http://localhost:8080';

/** Per-request timeout used when the `timeout` option is not set: 60 seconds. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** How long a turn's dropped event stream is resumed when the `resumeTimeout` option is not set: 3 minutes. */
export const DEFAULT_RESUME_TIMEOUT_MS = 180_000;

/** Options accepted by `new Service(options)` and `Service.getWorkspace(options)`. */
export interface ServiceOptions {
  /**
   * API key sent as `Authorization: Bearer <apiKey>`. Defaults to the environment variable
   * `SERVICE_API_KEY` (where an environment exists). A missing key is reported when a request
   * is made, as a `ServiceError` with code `missing_api_key` and status 401; nothing is sent.
   */
  apiKey?: string;
  /**
   * Address of the API, without the `/v1` prefix. Defaults to the environment variable
   * `SERVICE_BASE_URL`, else `http://localhost:8080`. Trailing slashes are removed.
   */
  baseURL?: string;
  /**
   * The `fetch` used for every request, for a custom transport or authentication. Defaults to
   * the global `fetch` (looked up at request time).
   */
  fetch?: typeof fetch;
  /**
   * Time limit of one request in milliseconds, covering the response headers and body.
   * Default: 60000 (60 s). Not applied to streaming turns. Must be a positive number.
   */
  timeout?: number;
  /**
   * How long, in milliseconds, a `Turn` keeps trying to resume its event stream after the
   * connection to the service is lost mid-turn (an API restart, a database failover, a network
   * drop), before it gives up with a `connection_error`. Default: 180000 (3 minutes). 0
   * disables resuming. Must be a finite number, 0 or more.
   *
   * Only the time without a working connection counts, and the count starts afresh whenever a
   * reconnection brings new events: a long turn survives any number of short outages. Within
   * the limit the SDK reconnects to `GET /v1/turns/:turnId/events` with `Last-Event-ID`, after
   * waits growing from 250 ms to 5 s (with jitter), or after the `Retry-After` the service
   * asked for on a 429 or 503 (the SDK gives up at once if that wait would end past the
   * limit); a reconnection with no answer within 10 s (or the rest of the limit, if longer)
   * counts as failed. An answer that cannot change by waiting (a 4xx other than 408 and 429, e.g. 404
   * `turn_not_found`) ends the turn at once with that error. See `Turn` for what the error says
   * and `WorkspaceClient.turn(turnId)` for getting the outcome of the turn later.
   */
  resumeTimeout?: number;
}

/**
 * Options every call accepts. Kept here, beside the service's options, rather than with a
 * resource class: every resource file imports it, and `workspace.ts` imports every resource.
 */
export interface CallOptions {
  /** Aborts the call; it then rejects with a `ServiceError` of code `aborted`. */
  signal?: AbortSignal;
}

/** Options after defaults are applied; what the HTTP layer works with. */
export interface ResolvedOptions {
  apiKey: string | undefined;
  baseURL: string;
  fetch: typeof fetch | undefined;
  timeout: number;
  resumeTimeout: number;
}

type Env = Record<string, string | undefined>;

/** The process environment in Node-like runtimes; empty in browsers, where `process` is absent. */
function readEnv(): Env {
  const runtime = globalThis as { process?: { env?: Env } };
  return runtime.process?.env ?? {};
}

/** Applies defaults: explicit options first, then non-empty environment variables, then constants. */
export function resolveOptions(options: ServiceOptions = {}): ResolvedOptions {
  const env = readEnv();
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isFinite(timeout) && timeout > 0)) {
    throw new RangeError(`timeout must be a positive number of milliseconds, got ${String(timeout)}`);
  }
  const resumeTimeout = options.resumeTimeout ?? DEFAULT_RESUME_TIMEOUT_MS;
  if (!(Number.isFinite(resumeTimeout) && resumeTimeout >= 0)) {
    throw new RangeError(`resumeTimeout must be a number of milliseconds, 0 or more, got ${String(resumeTimeout)}`);
  }
  const baseURL = options.baseURL ?? (env.SERVICE_BASE_URL || DEFAULT_BASE_URL);
  return {
    apiKey: options.apiKey ?? (env.SERVICE_API_KEY || undefined),
    baseURL: baseURL.replace(/\/+$/, ''),
    fetch: options.fetch,
    timeout,
    resumeTimeout,
  };
}
