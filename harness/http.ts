import { type Dispatcher, fetch as fetchWith } from 'undici';

/** Small fetch helpers for API tests: JSON in, status + JSON out. */
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
  } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const url = `${baseURL}${path}`;
  const res = opts.dispatcher ? await fetchWith(url, { method, headers, body, dispatcher: opts.dispatcher }) : await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: tests assert on the raw text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

export interface ErrorJson {
  error: { code: string; message: string; retryable: boolean; retryAfter?: number };
}
