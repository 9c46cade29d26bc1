import { errorFromResponse, ServiceError } from './errors.js';
import type { ResolvedOptions } from './options.js';

/** HTTP methods the service uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Query parameters; `undefined` values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** Raw bytes a request can carry; a string is sent as UTF-8. */
export type Bytes = Uint8Array | ArrayBuffer | Blob | string;

/** Per-call options of `HttpClient.request`. */
export interface RequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is with `Content-Type: application/octet-stream`, instead of `body`. */
  bytes?: Bytes;
  /**
   * Shape the JSON answer must have, else the call rejects with code `invalid_response`:
   * `object` (a JSON object) or `list` (`{ "data": [...] }`, which resolves to the array).
   */
  expect?: 'object' | 'list';
  /** Appended to the path as a query string. */
  query?: Query;
  /** Aborts the request; the call then rejects with code `aborted`. */
  signal?: AbortSignal;
}

/** Per-call options of `HttpClient.stream`. */
export interface StreamOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Extra headers; they override the defaults (`Accept: text/event-stream`, `Authorization`). */
  headers?: Record<string, string>;
  /** Aborts the request and the body stream. */
  signal?: AbortSignal;
}

/**
 * The transport under every resource: one call is one request, with no retries and no
 * caching. Failures of any kind reject with a `ServiceError`.
 */
export class HttpClient {
  /** Wraps resolved options (see `resolveOptions`). */
  constructor(private readonly options: ResolvedOptions) {}

  /** The `resumeTimeout` option (ms): how long a `Turn` may try to resume a broken stream. */
  get resumeTimeout(): number {
    return this.options.resumeTimeout;
  }

  /**
   * Sends one request and resolves to the parsed JSON answer (`undefined` for 204 or an empty
   * body; the `data` array for `expect: 'list'`). The `timeout` option bounds the whole
   * exchange, body included.
   */
  request<T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<T> {
    return this.exchange(method, path, opts, 'application/json', (response) => parseBody<T>(response, opts.expect));
  }

  /** Like `request`, but resolves to the raw bytes of the answer (empty for 204). */
  requestBytes(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<Uint8Array> {
    return this.exchange(method, path, opts, '*/*', async (response) => new Uint8Array(await response.arrayBuffer()));
  }

  private async exchange<T>(method: HttpMethod, path: string, opts: RequestOptions, accept: string, read: (response: Response) => Promise<T>): Promise<T> {
    const { body, contentType } = encode(opts);
    const headers = this.headers(accept, contentType);
    const url = this.url(path, opts.query);
    const outer = opts.signal;
    if (outer?.aborted) throw transportError(outer.reason, { outer, url });
    const controller = new AbortController();
    const forward = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', forward, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeout);
    try {
      const init: RequestInit = { method, headers, signal: controller.signal };
      if (body !== undefined) init.body = body;
      const response = await this.send(url, init);
      if (!response.ok) throw await errorFromResponse(response);
      return await read(response);
    } catch (error) {
      throw transportError(error, { outer, url, timedOut, timeout: this.options.timeout });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    }
  }

  /**
   * Opens a streaming request and resolves to the `Response` once its headers arrive; the
   * caller reads `response.body`. No timeout applies (streams can last as long as a turn);
   * use `signal` to stop. A non-2xx answer rejects with a `ServiceError`.
   */
  async stream(method: HttpMethod, path: string, opts: StreamOptions = {}): Promise<Response> {
    const { body, contentType } = encode(opts);
    const headers = this.headers('text/event-stream', contentType, opts.headers);
    const url = this.url(path);
    const outer = opts.signal;
    try {
      const init: RequestInit = { method, headers };
      if (body !== undefined) init.body = body;
      if (outer) init.signal = outer;
      const response = await this.send(url, init);
      if (!response.ok) throw await errorFromResponse(response);
      return response;
    } catch (error) {
      throw transportError(error, { outer, url });
    }
  }

  private send(url: string, init: RequestInit): Promise<Response> {
    // Called as a plain function: a browser's fetch throws when invoked as a method of another object.
    const doFetch = this.options.fetch ?? globalThis.fetch;
    return doFetch(url, init);
  }

  private url(path: string, query?: Query): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) params.append(key, String(value));
    }
    const search = params.toString();
    return `${this.options.baseURL}${path}${search ? `?${search}` : ''}`;
  }

  private headers(accept: string, contentType: string | undefined, extra: Record<string, string> = {}): Headers {
    const headers = new Headers({ Accept: accept });
    if (contentType !== undefined) headers.set('Content-Type', contentType);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    if (!headers.has('Authorization')) headers.set('Authorization', `Bearer ${this.apiKey()}`);
    return headers;
  }

  private apiKey(): string {
    const key = this.options.apiKey;
    if (key) return key;
    throw new ServiceError({
      code: 'missing_api_key',
      status: 401,
      message: 'no API key: pass the apiKey option or set the SERVICE_API_KEY environment variable',
    });
  }
}

/** A request body `fetch` accepts in browsers and Node alike. */
type WireBody = string | Blob | ArrayBuffer | Uint8Array<ArrayBuffer>;

/** The body to send and its media type: raw `bytes` win over a JSON `body`. */
function encode(opts: { body?: unknown; bytes?: Bytes }): { body?: WireBody; contentType?: string } {
  if (opts.bytes !== undefined) return { body: wireBytes(opts.bytes), contentType: 'application/octet-stream' };
  if (opts.body !== undefined) return { body: JSON.stringify(opts.body), contentType: 'application/json' };
  return {};
}

function wireBytes(bytes: Bytes): WireBody {
  if (typeof bytes === 'string') return new TextEncoder().encode(bytes);
  if (!(bytes instanceof Uint8Array)) return bytes;
  // fetch refuses views of a SharedArrayBuffer: copy those; send the others as they are.
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

async function parseBody<T>(response: Response, expect: RequestOptions['expect']): Promise<T> {
  const text = response.status === 204 ? '' : await response.text();
  const invalid = (what: string, cause?: unknown) =>
    new ServiceError({
      code: 'invalid_response',
      status: response.status,
      retryable: false,
      message: `the service answered ${response.status} with a body that is not ${what}`,
      requestId: response.headers.get('x-request-id') ?? undefined,
      cause,
    });
  if (text === '' && expect === undefined) return undefined as T;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw invalid('JSON', cause);
  }
  if (expect === undefined) return value as T;
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (expect === 'object') {
    if (!isObject) throw invalid('a JSON object');
    return value as T;
  }
  const data: unknown = isObject ? (value as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw invalid('a list ({"data": [...]})');
  return data as T;
}

interface FailureContext {
  url: string;
  outer: AbortSignal | undefined;
  timedOut?: boolean;
  timeout?: number;
}

/** Maps whatever a failed exchange threw to a `ServiceError` (kept as is when it already is one). */
function transportError(error: unknown, ctx: FailureContext): ServiceError {
  if (error instanceof ServiceError) return error;
  if (ctx.timedOut) {
    return new ServiceError({ code: 'timeout', status: 0, message: `no answer from ${ctx.url} within ${ctx.timeout} ms`, cause: error });
  }
  if (ctx.outer?.aborted) {
    return new ServiceError({ code: 'aborted', status: 0, retryable: false, message: 'the request was aborted', cause: ctx.outer.reason });
  }
  return new ServiceError({ code: 'connection_error', status: 0, message: `could not reach ${ctx.url}: ${describe(error)}`, cause: error });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}
