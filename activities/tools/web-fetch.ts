import type { ModelTool } from '../model/types';
import { capText, toolLimits } from './limits';
import { readCapped } from '../outbound/capped-body';
import { describeOutboundError } from '../outbound/errors';
import type { SafeFetch } from '../outbound/safe-fetch';
import type { ToolResult } from './types';

/**
 * The built-in tool `web.fetch` (offered to the model as `web_fetch`): fetch a public page or API
 * over HTTP(S) through the SafeFetch, so private and internal addresses are refused.
 *
 * The model gets `HTTP <status> <statusText>`, a `content-type:` line (and `url:` when redirects
 * led elsewhere, `content-length:` for HEAD), a blank line, then the body as text: HTML reduced to
 * readable text (scripts, styles and tags removed, entities decoded, whitespace collapsed), JSON,
 * XML and other text as is, anything else `[binary content, N bytes, <type>]`. At most 1 MiB is
 * read and 16 000 characters are given (see limits.ts).
 *
 * `ok` means "a response was received": a 404 or 500 is `ok: true` with the status in the content
 * (the page answered; the model reads the status). `ok: false` is for no response at all: a
 * refused address, an invalid or non-HTTP URL, a DNS failure, a connection error, a timeout.
 * Never throws.
 */

const WEB_FETCH_TOOL_NAME = 'web_fetch';

export const webFetchTool: ModelTool = {
  name: WEB_FETCH_TOOL_NAME,
  description:
    'Fetch a public web page or HTTP API by URL and return its status, content type and content as text ' +
    '(HTML is reduced to readable text; long content is truncated). Only http:// and https:// URLs on the public internet.',
  parameters: {
    type: 'object',
    properties: {
      url: { type: 'string', description: 'The absolute http:// or https:// URL to fetch.' },
      method: { type: 'string', enum: ['GET', 'HEAD'], description: 'GET (default) for the content, HEAD for the status and headers only.' },
    },
    required: ['url'],
    additionalProperties: false,
  },
};

interface WebFetchOptions {
  fetch: SafeFetch;
  signal: AbortSignal;
  /** Default `toolLimits.webFetchTimeoutMs` (20 s). */
  timeoutMs?: number;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  copy: '©',
  reg: '®',
  trade: '™',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  bull: '•',
  middot: '·',
  euro: '€',
  pound: '£',
  yen: '¥',
  deg: '°',
  times: '×',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

const BLOCK_TAGS =
  'address|article|aside|blockquote|br|dd|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|tbody|thead|tfoot|tr|ul';

/** Readable text of an HTML document: no scripts, styles or tags; entities decoded; whitespace collapsed. */
export function htmlToText(html: string): string {
  let text = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template|svg|iframe|object|canvas)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    // An unclosed script or style swallows the rest, as in a browser.
    .replace(/<(script|style)\b[\s\S]*$/i, ' ')
    .replace(/<!doctype[^>]*>/gi, ' ')
    .replace(/<(td|th)\b[^>]*>/gi, ' ')
    .replace(new RegExp(`</?(?:${BLOCK_TAGS})\\b[^>]*>`, 'gi'), '\n')
    .replace(/<\/?[a-z][^>]*>/gi, ' ');
  text = decodeEntities(text);
  return text
    .split('\n')
    .map((line) => line.replace(/[\s\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Is this media type text we can show (as opposed to binary)? */
function isTextual(mediaType: string): boolean {
  return (
    mediaType.startsWith('text/') ||
    /[/+](json|xml|yaml|x-yaml|javascript|ecmascript|csv|x-www-form-urlencoded|graphql|x-ndjson)$/.test(mediaType) ||
    mediaType === 'application/json' ||
    mediaType === 'application/xml'
  );
}

/** Without a content type: text when the bytes decode as UTF-8 and hold no NUL. */
function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, Math.min(bytes.byteLength, 8192));
  if (sample.includes(0)) return false;
  try {
    // `stream`: a multi-byte character cut by the sample's end is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The body of a response as text for the model (not yet capped to the model's characters): HTML
 * reduced to text, other text as is, binary described. Reads at most `toolLimits.responseBytes`.
 */
export async function responseBodyText(response: Response, method: string): Promise<string> {
  if (method === 'HEAD' || response.status === 204 || response.status === 304) {
    await response.body?.cancel().catch(() => undefined);
    return '';
  }
  const contentType = response.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const body = await readCapped(response, toolLimits.responseBytes);
  const byteNote = body.truncated ? `\n[truncated: the response is larger than ${toolLimits.responseBytes} bytes; only the first ${toolLimits.responseBytes} were read]` : '';
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return htmlToText(body.text) + byteNote;
  if (mediaType === '' ? looksLikeText(body.bytes) : isTextual(mediaType)) return body.text + byteNote;
  const size = body.truncated ? `more than ${toolLimits.responseBytes} bytes` : `${body.bytes.byteLength} bytes`;
  return `[binary content, ${size}, ${mediaType || 'unknown type'}]`;
}

/** `HTTP <status> <statusText>` and the lines that describe a response, before its body. */
export function responseHead(response: Response, options: { method: string; requestedUrl: string }): string {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const lines = [status, `content-type: ${response.headers.get('content-type') ?? '(none)'}`];
  if (response.url && response.url !== options.requestedUrl) lines.push(`url: ${response.url}`);
  if (options.method === 'HEAD') {
    const length = response.headers.get('content-length');
    if (length !== null) lines.push(`content-length: ${length}`);
  }
  return lines.join('\n');
}

/** An AbortSignal for one call: the caller's signal or the timeout, whichever fires first. */
export function callSignal(signal: AbortSignal, timeoutMs: number): { signal: AbortSignal; timedOut: () => boolean } {
  const timeout = AbortSignal.timeout(timeoutMs);
  return { signal: AbortSignal.any([signal, timeout]), timedOut: () => timeout.aborted && !signal.aborted };
}

/** Runs `web.fetch`; never throws (see above). */
export async function runWebFetch(args: Record<string, unknown>, options: WebFetchOptions): Promise<ToolResult> {
  const unknown = Object.keys(args).filter((k) => k !== 'url' && k !== 'method');
  if (unknown.length > 0) return { ok: false, content: `web_fetch: unknown argument ${unknown.map((k) => `"${k}"`).join(', ')}; it takes url and method` };
  const url = args.url;
  if (typeof url !== 'string' || url.trim() === '') return { ok: false, content: 'web_fetch: "url" is required: an http:// or https:// URL' };
  const method = args.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return { ok: false, content: 'web_fetch: "method" must be GET or HEAD' };
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return { ok: false, content: `web_fetch: not a valid URL: ${url}` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, content: `web_fetch: only http:// and https:// URLs can be fetched (got ${parsed.protocol}//)` };
  }
  if (parsed.username || parsed.password) return { ok: false, content: 'web_fetch: URLs with a user name or password are not fetched' };

  const timeoutMs = options.timeoutMs ?? toolLimits.webFetchTimeoutMs;
  const call = callSignal(options.signal, timeoutMs);
  try {
    const response = await options.fetch(parsed.href, {
      method,
      signal: call.signal,
      headers: { accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5' },
    });
    const head = responseHead(response, { method, requestedUrl: parsed.href });
    const body = await responseBodyText(response, method);
    return { ok: true, content: capText(body === '' ? head : `${head}\n\n${body}`) };
  } catch (e) {
    return { ok: false, content: `web_fetch: ${describeOutboundError(e, { url: parsed.href, timeoutMs, timedOut: call.timedOut() })}` };
  }
}
