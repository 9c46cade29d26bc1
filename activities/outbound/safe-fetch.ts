import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { toolLimits } from '../tools/limits';
import { AddressPolicy, guardedLookup } from './address-policy';
import { findOutboundError, OutboundError } from './errors';

/**
 * Outbound HTTP for tools (web.fetch, HTTP tools, MCP servers): a fetch that will not reach the
 * service's own network (address-policy.ts says which addresses are refused).
 *
 * The check runs on the addresses a host name resolves to, at connect time (an undici Agent whose
 * `connect.lookup` filters the DNS answer), so a name that resolves to a public address when
 * checked and a private one when connecting (DNS rebinding) cannot slip through. URLs with a
 * literal IP are checked before connecting (Node skips the lookup for them). Redirects are
 * followed here, by hand, so every hop goes through the same checks.
 */

/** A fetch that refuses private, loopback, link-local and metadata addresses. */
export type SafeFetch = (url: string, init?: RequestInit & { maxRedirects?: number; carriesCredentials?: boolean }) => Promise<Response>;

interface SafeFetchOptions {
  /** `true`: nothing is refused; a list of CIDRs: addresses in those ranges are allowed; `false`/`[]`: the default blocks. */
  allowPrivate: boolean | readonly string[];
  /** Sent as `User-Agent` when the request sets none. */
  userAgent?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that describe a request body: dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
/**
 * The only headers sent on to another origin after a redirect: any other header (Authorization,
 * Cookie, an `X-Api-Key` filled from a secret…) may carry a credential meant for the first origin.
 */
const CROSS_ORIGIN_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-language',
  'content-type',
  'pragma',
  'user-agent',
]);

/** Refuses non-HTTP URLs, refused host names and refused literal IPs, before any connection. */
function checkUrl(url: URL, policy: AddressPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError(`only http:// and https:// URLs can be fetched (got ${url.protocol}//)`);
  }
  const host = url.hostname;
  policy.checkHostName(host);
  const literal = host.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(literal)) policy.checkAddress(literal, literal);
}

/** Whether a request carries a credential: said by the caller, a header other than the harmless ones, or user info in the URL. */
function carriesCredentials(init: { carriesCredentials?: boolean }, headers: Headers, url: URL): boolean {
  if (init.carriesCredentials === true || url.username !== '' || url.password !== '') return true;
  let found = false;
  headers.forEach((_value, key) => {
    if (!CROSS_ORIGIN_HEADERS.has(key)) found = true;
  });
  return found;
}

async function discard(response: { body: { cancel(): Promise<void> } | null }): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Already closed.
  }
}

/**
 * A fetch that refuses private and internal addresses (address-policy.ts). It follows redirects itself:
 * at most `maxRedirects` (default 5; one more throws), only to http(s) URLs, 303 (and 301/302 after
 * a POST) turning into a GET without a body, 307/308 keeping method and body; to another origin
 * only harmless headers (Accept…, Content-Type, User-Agent, …) are sent on — never Authorization,
 * Cookie or a custom header that may hold a secret — and a 307/308 with a body is refused there when
 * the request carries credentials (such a header, user info in the URL, or `carriesCredentials`). `redirect:
 * 'manual'` returns the 3xx response, `redirect: 'error'` throws on one.
 *
 * Throws OutboundRefusedError for a refused address, OutboundError for a bad URL or redirect, and
 * what fetch throws otherwise (`TypeError: fetch failed` with the network error as `cause`,
 * `AbortError`/`TimeoutError` when the signal fires).
 */
export function createSafeFetch(options: SafeFetchOptions): SafeFetch {
  const policy = new AddressPolicy(options.allowPrivate);
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(policy) } });
  const userAgent = options.userAgent ?? 'hosted-agents';

  return async (input, init = {}) => {
    const maxRedirects = init.maxRedirects ?? toolLimits.maxRedirects;
    const mode = init.redirect ?? 'follow';
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new OutboundError(`not a valid URL: ${input}`);
    }
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body ?? null;
    const headers = new Headers(init.headers);
    if (!headers.has('user-agent')) headers.set('user-agent', userAgent);

    for (let hop = 0; ; hop++) {
      checkUrl(url, policy);
      const pairs: [string, string][] = [];
      headers.forEach((value, key) => pairs.push([key, value]));
      const request: UndiciRequestInit = {
        method,
        headers: pairs,
        body: body as UndiciRequestInit['body'],
        redirect: 'manual',
        signal: init.signal ?? null,
        dispatcher,
      };
      let response: Awaited<ReturnType<typeof undiciFetch>>;
      try {
        response = await undiciFetch(url, request);
      } catch (e) {
        throw findOutboundError(e) ?? e;
      }
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null || mode === 'manual') {
        return response as unknown as Response;
      }
      await discard(response);
      if (mode === 'error') throw new OutboundError(`${url.href} redirects (HTTP ${response.status}) and redirects are not allowed`);
      if (hop >= maxRedirects) throw new OutboundError(`too many redirects: more than ${maxRedirects}, the last from ${url.href}`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new OutboundError(`${url.href} redirects to an invalid URL: ${location}`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new OutboundError(`${url.href} redirects to a non-HTTP URL (${next.protocol}//); only http:// and https:// are followed`);
      }
      const toGet =
        (response.status === 303 && method !== 'GET' && method !== 'HEAD') ||
        ((response.status === 301 || response.status === 302) && method === 'POST');
      if (toGet) {
        method = 'GET';
        body = null;
        for (const h of BODY_HEADERS) headers.delete(h);
      } else if (body !== null && typeof body === 'object' && 'getReader' in body) {
        throw new OutboundError(`${url.href} redirects (HTTP ${response.status}) and a streamed request body cannot be sent again`);
      }
      if (next.origin !== url.origin) {
        // The body may hold what the headers held (a token filled into a JSON body): a request that
        // carries credentials never takes its body to another origin.
        if (body !== null && carriesCredentials(init, headers, url)) {
          throw new OutboundError(
            `${url.href} redirects (HTTP ${response.status}) to another origin (${next.origin}); a request carrying credentials is not sent there with its body`,
          );
        }
        const names: string[] = [];
        headers.forEach((_value, key) => names.push(key));
        for (const h of names) if (!CROSS_ORIGIN_HEADERS.has(h)) headers.delete(h);
      }
      url = next;
    }
  };
}

