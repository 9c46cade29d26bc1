/** Base URL used when neither the `baseURL` option nor `SERVICE_BASE_URL` is set. */
export const DEFAULT_BASE_URL = 'http://localhost:8080';

/** Per-request timeout used when the `timeout` option is not set: 60 seconds. */
export const DEFAULT_TIMEOUT_MS = 60_000;

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
}

/** Options after defaults are applied; what the HTTP layer works with. */
export interface ResolvedOptions {
  apiKey: string | undefined;
  baseURL: string;
  fetch: typeof fetch | undefined;
  timeout: number;
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
  const baseURL = options.baseURL ?? (env.SERVICE_BASE_URL || DEFAULT_BASE_URL);
  return {
    apiKey: options.apiKey ?? (env.SERVICE_API_KEY || undefined),
    baseURL: baseURL.replace(/\/+$/, ''),
    fetch: options.fetch,
    timeout,
  };
}
