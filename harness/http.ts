import { type Dispatcher, fetch as fetchWith } from 'undici';

/** Small fetch helpers for the tests and the benches: JSON in, status + JSON out. */
export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = unknown>(
  baseURL: string,
  method: string,
  path: string,
  opts: {
    apiKey?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    /** Connections of the test's own (an undici `Agent`) rather than the process's shared pool. */
    dispatcher?: Dispatcher;
    signal?: AbortSignal;
  } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const url = `${baseURL}${path}`;
  const { signal } = opts;
  const res = opts.dispatcher ? await fetchWith(url, { method, headers, body, signal, dispatcher: opts.dispatcher }) : await fetch(url, { method, headers, body, signal });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: tests assert on the raw text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** A JSON call with an API key that must succeed: its body, or an error naming the call and the answer (30 s at most). */
export async function apiJson<T>(baseURL: string, apiKey: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await call<T>(baseURL, method, path, { apiKey, body, signal: AbortSignal.timeout(30_000) });
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body;
}

export interface ErrorJson {
  error: { code: string; message: string; retryable: boolean; retryAfter?: number };
}
