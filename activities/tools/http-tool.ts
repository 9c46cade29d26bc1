import { effectiveParamLocation, type HttpTool } from '../../domain/agent-tools';
import type { Credentials } from '../../domain/credentials';
import { describeOutboundError } from '../outbound/errors';
import type { SafeFetch } from '../outbound/safe-fetch';
import { validateArgs } from './http-tool-params';
import { capText, httpToolTimeout } from './limits';
import { maskSecrets, resolveReference, TEMPLATE_PATTERN } from './substitute';
import type { ToolResult } from './types';
import { callSignal, responseBodyText, responseHead } from './web-fetch';

/**
 * HTTP tools: an agent's own endpoints, offered to the model by name with a JSON schema of their
 * params, called through the SafeFetch with credentials filled in at call time.
 *
 * Where arguments go:
 * - `in: 'path'`: the URL's `{name}` placeholder, URL-encoded (always required, never empty).
 * - `in: 'query'`: appended to the URL's query (`name=value`, URL-encoded).
 * - `in: 'header'`: a request header of that name (no line breaks allowed).
 * - `in: 'body'` without `tool.body`: a JSON object of the body params given
 *   (`Content-Type: application/json` unless the tool's headers set one).
 * - With `tool.body`, the body is that template and `{{args.NAME}}` is filled in; body params go
 *   only where the template names them (they are not added separately). In a body that looks
 *   like JSON (starts with `{` or `[`, or the Content-Type is JSON): inside a JSON string the
 *   value is JSON-escaped text; outside one it is the JSON value (`"text"`, `3`, `true`; `null`
 *   when an optional arg is absent). In a form-encoded body (`application/x-www-form-urlencoded`)
 *   it is URL-encoded; otherwise it is the plain text.
 * - `{{args.NAME}}` also works in the URL (URL-encoded) and header values; a param named by a
 *   template goes only there.
 * - GET cannot have a body: body params or `tool.body` on a GET tool are an error result.
 *
 * Credentials: `{{secrets.NAME}}` (only names listed in `tool.secrets`) and
 * `{{connections.PROVIDER}}` (that connection's access token; any connection present) in the URL
 * (URL-encoded), header values and body (JSON-escaped inside a JSON string, URL-encoded in a form
 * body). Templates are filled in one pass: the model's arguments are never scanned for
 * `{{secrets.…}}`, so it cannot ask for a secret by writing one.
 *
 * Arguments are checked strictly against the params (type, enum, required, no unknown names);
 * `null` counts as absent. Any problem is a `{ ok: false }` result naming it, never a throw.
 *
 * The model gets `HTTP <status> <statusText>\ncontent-type: …\n\n<body>` (capped, see limits.ts);
 * `ok` is true for a 2xx status only. A refusal, network error or timeout (`tool.timeoutMs`,
 * default 30 s) is `ok: false` with a clear message. Every result is masked with `maskSecrets`.
 */

/** What one template is: how a value is written into it. */
type Context = 'url' | 'header' | 'json' | 'form' | 'text';

const PATH_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function asText(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : String(value);
}

/** Writes a value (an argument, or a credential when `credential`) into a template of this context. */
function encodeValue(value: unknown, context: Context, inJsonString: boolean, credential: boolean): string {
  switch (context) {
    case 'url':
    case 'form':
      return encodeURIComponent(asText(value));
    case 'header':
    case 'text':
      return asText(value);
    case 'json':
      if (inJsonString) return JSON.stringify(asText(value)).slice(1, -1);
      // Outside a string a credential is written as is (e.g. a numeric account id); an argument as its JSON value.
      return credential ? asText(value) : JSON.stringify(value ?? null);
  }
}

/** Is position `end` of `text` inside a JSON string, given the state at `start`? */
function advanceJsonString(text: string, start: number, end: number, inString: boolean): boolean {
  for (let i = start; i < end; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
  }
  return inString;
}

interface FillState {
  tool: HttpTool;
  args: Map<string, unknown>;
  credentials: Credentials;
  /** Values of credentials put in. */
  used: string[];
}

/**
 * Fills one template in one pass: `{{secrets.X}}`, `{{connections.X}}`, `{{args.X}}` and, in the
 * URL, `{name}` path placeholders.
 */
function fill(template: string, context: Context, state: FillState): { ok: true; value: string } | { ok: false; error: string } {
  const pattern = new RegExp(
    context === 'url' ? `${TEMPLATE_PATTERN.source}|${PATH_PLACEHOLDER.source}` : TEMPLATE_PATTERN.source,
    'g',
  );
  const params = state.tool.params ?? {};
  let out = '';
  let last = 0;
  let inString = false;
  for (const m of template.matchAll(pattern)) {
    const index = m.index;
    if (context === 'json') inString = advanceJsonString(template, last, index, inString);
    out += template.slice(last, index);
    last = index + m[0].length;
    const [, kind, name, pathName] = m;
    if (pathName !== undefined) {
      // `{name}`: a path param (the schema guarantees it is one and required).
      out += encodeURIComponent(asText(state.args.get(pathName)));
      continue;
    }
    if (kind === 'args') {
      if (!Object.hasOwn(params, name!)) return { ok: false, error: `the tool's template names {{args.${name}}} but the tool has no param "${name}"` };
      out += encodeValue(state.args.get(name!), context, inString, false);
      continue;
    }
    const resolved = resolveReference({ kind: kind as 'secrets' | 'connections', name: name! }, state.credentials, state.tool.secrets ?? []);
    if (!resolved.ok) return resolved;
    state.used.push(resolved.value);
    out += encodeValue(resolved.value, context, inString, true);
  }
  return { ok: true, value: out + template.slice(last) };
}

/** Param names a template takes via `{{args.NAME}}`. */
function argsNamedIn(template: string): string[] {
  return [...template.matchAll(TEMPLATE_PATTERN)].filter((m) => m[1] === 'args').map((m) => m[2]!);
}

interface BuiltRequest {
  url: string;
  method: HttpTool['method'];
  headers: Record<string, string>;
  body?: string;
  /** The credential values put into the request (for masking). */
  credentialValues: string[];
}

/** The request a call makes, or the error (naming the arg, secret or connection) that prevents it. */
export function buildHttpRequest(
  tool: HttpTool,
  args: Record<string, unknown>,
  credentials: Credentials,
): { ok: true; request: BuiltRequest } | { ok: false; error: string } {
  const checked = validateArgs(tool, args);
  if (!checked.ok) return { ok: false, error: `invalid arguments: ${checked.error}` };
  const state: FillState = { tool, args: checked.values, credentials, used: [] };
  const params = tool.params ?? {};

  const templated = new Set<string>([tool.url, ...Object.values(tool.headers ?? {}), tool.body ?? ''].flatMap(argsNamedIn));

  // URL: path placeholders, templates, then query params.
  const filledUrl = fill(tool.url, 'url', state);
  if (!filledUrl.ok) return filledUrl;
  let url: URL;
  try {
    url = new URL(filledUrl.value);
  } catch {
    return { ok: false, error: `the tool's URL is not valid once filled in (${tool.url})` };
  }
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const bodyParams: Record<string, unknown> = {};
  for (const [name, value] of checked.values) {
    if (templated.has(name)) continue;
    const location = effectiveParamLocation(tool.method, params[name]!);
    if (location === 'query') query.push(`${encodeURIComponent(name)}=${encodeURIComponent(asText(value))}`);
    else if (location === 'body') bodyParams[name] = value;
    else if (location === 'header') headers[name.toLowerCase()] = asText(value);
  }
  if (query.length) url.search = url.search ? `${url.search}&${query.join('&')}` : `?${query.join('&')}`;

  // Headers: the tool's (filled), then header params over them.
  const toolHeaders: Record<string, string> = {};
  for (const [name, template] of Object.entries(tool.headers ?? {})) {
    const filled = fill(template, 'header', state);
    if (!filled.ok) return filled;
    if (/[\r\n\0]/.test(filled.value)) return { ok: false, error: `header "${name}" would contain a line break once filled in` };
    toolHeaders[name.toLowerCase()] = filled.value;
  }
  const allHeaders = { ...toolHeaders, ...headers };
  const contentType = allHeaders['content-type'];

  // Body: the template, or a JSON object of the body params.
  let body: string | undefined;
  if (tool.body !== undefined) {
    const trimmed = tool.body.trimStart();
    const context: Context =
      (contentType !== undefined && /[/+]json\b/i.test(contentType)) || (contentType === undefined && (trimmed.startsWith('{') || trimmed.startsWith('[')))
        ? 'json'
        : contentType !== undefined && /application\/x-www-form-urlencoded/i.test(contentType)
          ? 'form'
          : 'text';
    const filled = fill(tool.body, context, state);
    if (!filled.ok) return filled;
    body = filled.value;
    if (context === 'json' && contentType === undefined) allHeaders['content-type'] = 'application/json';
  } else if (Object.keys(bodyParams).length > 0) {
    body = JSON.stringify(bodyParams);
    if (contentType === undefined) allHeaders['content-type'] = 'application/json';
  }
  if (body !== undefined && tool.method === 'GET') {
    return { ok: false, error: 'a GET request cannot have a body: put these params in the query (in: "query")' };
  }
  return {
    ok: true,
    request: { url: url.href, method: tool.method, headers: allHeaders, ...(body !== undefined ? { body } : {}), credentialValues: state.used },
  };
}

interface HttpToolOptions {
  fetch: SafeFetch;
  credentials: Credentials;
  signal: AbortSignal;
}

/** Calls an HTTP tool; never throws (see above). */
export async function runHttpTool(tool: HttpTool, args: Record<string, unknown>, options: HttpToolOptions): Promise<ToolResult> {
  // Masked before capping, so a cut cannot leave part of a secret unrecognised.
  const mask = (result: ToolResult): ToolResult => ({ ...result, content: capText(maskSecrets(result.content, options.credentials)) });
  const built = buildHttpRequest(tool, args, options.credentials);
  if (!built.ok) return mask({ ok: false, content: `${tool.name}: ${built.error}` });
  const { request } = built;
  const timeoutMs = httpToolTimeout(tool.timeoutMs);
  const call = callSignal(options.signal, timeoutMs);
  try {
    const response = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      // A secret filled into the body alone still makes it a request that carries credentials.
      carriesCredentials: request.credentialValues.length > 0,
      signal: call.signal,
    });
    const head = responseHead(response, { method: request.method, requestedUrl: request.url });
    const body = await responseBodyText(response, request.method);
    return mask({ ok: response.ok, content: body === '' ? head : `${head}\n\n${body}` });
  } catch (e) {
    return mask({ ok: false, content: `${tool.name}: ${describeOutboundError(e, { url: request.url, timeoutMs, timedOut: call.timedOut() })}` });
  }
}
