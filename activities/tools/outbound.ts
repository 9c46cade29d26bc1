import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { toolLimits } from './limits';
import type { SafeFetch } from './types';

/**
 * Outbound HTTP for tools (web.fetch, HTTP tools): a fetch that will not reach the service's own
 * network. Loopback, private (RFC 1918), link-local (cloud metadata at 169.254.169.254),
 * unique-local, unspecified, carrier-grade NAT, broadcast, multicast and reserved addresses —
 * also as IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 IPv6 — and the host name
 * `metadata.google.internal` are refused.
 *
 * The check runs on the addresses a host name resolves to, at connect time (an undici Agent whose
 * `connect.lookup` filters the DNS answer), so a name that resolves to a public address when
 * checked and a private one when connecting (DNS rebinding) cannot slip through. URLs with a
 * literal IP are checked before connecting (Node skips the lookup for them). Redirects are
 * followed here, by hand, so every hop goes through the same checks.
 *
 * An operator reaches internal services on purpose with OUTBOUND_ALLOW_PRIVATE: `true` allows
 * everything, a list of CIDRs allows just those ranges.
 */

const HINT = 'an operator can allow it with OUTBOUND_ALLOW_PRIVATE';

/** An outbound request that could not be made: bad URL, bad redirect, too many redirects. */
export class OutboundError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

/** A request to a private, loopback, link-local or metadata address, refused before connecting. */
export class OutboundRefusedError extends OutboundError {
  constructor(
    readonly host: string,
    /** The address the host resolved to (the host itself for a literal IP); absent for a refused name. */
    readonly address: string | undefined,
    /** Why: the address range (e.g. `loopback`, `private`, `linkLocal`) or `metadata host`. */
    readonly reason: string,
  ) {
    super(
      address === undefined || address === host
        ? `refused to connect to ${host} (${reason}): private and internal addresses are blocked; ${HINT}`
        : `refused to connect to ${host}: it resolves to ${address} (${reason}); private and internal addresses are blocked; ${HINT}`,
    );
    this.name = 'OutboundRefusedError';
  }
}

export interface SafeFetchOptions {
  /** `true`: nothing is refused; a list of CIDRs: addresses in those ranges are allowed; `false`/`[]`: the default blocks. */
  allowPrivate: boolean | readonly string[];
  /** Sent as `User-Agent` when the request sets none. */
  userAgent?: string;
}

const BLOCKED_HOSTS = new Set(['metadata.google.internal', 'metadata.goog']);

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** Parses one CIDR (or a bare address, taken as a single host); undefined when it is not one. */
export function parseCidr(text: string): Cidr | undefined {
  const t = text.trim();
  if (ipaddr.IPv4.isValidCIDRFourPartDecimal(t)) return ipaddr.IPv4.parseCIDR(t);
  if (ipaddr.IPv6.isValidCIDR(t)) return ipaddr.IPv6.parseCIDR(t);
  if (ipaddr.IPv4.isValidFourPartDecimal(t)) return [ipaddr.IPv4.parse(t), 32];
  if (ipaddr.IPv6.isValid(t)) return [ipaddr.IPv6.parse(t), 128];
  return undefined;
}

/**
 * Why an address is not a public unicast one (`loopback`, `private`, …), or undefined when it is.
 * IPv4 forms embedded in IPv6 are judged by the IPv4 address.
 */
export function blockedRange(address: string): string | undefined {
  let ip: Address;
  try {
    ip = ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return 'not an IP address';
  }
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? undefined : range;
  }
  const v6 = ip as ipaddr.IPv6;
  const parts = v6.parts;
  const range = v6.range();
  // ::a.b.c.d (IPv4-compatible, deprecated) and everything else in ::/96.
  if (parts.slice(0, 6).every((p) => p === 0)) return range === 'unicast' ? 'ipv4Compatible' : range;
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the IPv4 address they embed.
  const embedded: [number, number] | undefined =
    range === 'rfc6052' ? [parts[6]!, parts[7]!] : range === '6to4' ? [parts[1]!, parts[2]!] : undefined;
  if (embedded) {
    const [high, low] = embedded;
    const v4 = new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
    const inner = v4.range();
    return inner === 'unicast' ? undefined : `${range} of ${v4.toString()} (${inner})`;
  }
  return range === 'unicast' ? undefined : range;
}

/** The policy of one SafeFetch: is this address (or host name) allowed? */
class AddressPolicy {
  private readonly allowAll: boolean;
  private readonly allowed: Cidr[];

  constructor(allowPrivate: boolean | readonly string[]) {
    this.allowAll = allowPrivate === true;
    this.allowed = [];
    if (Array.isArray(allowPrivate)) {
      for (const text of allowPrivate) {
        const cidr = parseCidr(text);
        if (!cidr) throw new OutboundError(`OUTBOUND_ALLOW_PRIVATE: "${text}" is not a CIDR such as 10.1.0.0/16 or ::1/128`);
        this.allowed.push(cidr);
      }
    }
  }

  /** Throws OutboundRefusedError when `address` (which `host` resolved to) may not be reached. */
  checkAddress(host: string, address: string): void {
    if (this.allowAll) return;
    const reason = blockedRange(address);
    if (reason === undefined) return;
    if (this.isListed(address)) return;
    throw new OutboundRefusedError(host, address, reason);
  }

  /** Throws for refused names (cloud metadata); addresses are checked after resolution. */
  checkHostName(host: string): void {
    if (this.allowAll) return;
    if (BLOCKED_HOSTS.has(normalizeHost(host))) throw new OutboundRefusedError(host, undefined, 'cloud metadata host');
  }

  private isListed(address: string): boolean {
    let ip: Address;
    try {
      ip = ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
    } catch {
      return false;
    }
    return this.allowed.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
  }
}

function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, '');
}

/** A `net.connect` lookup that drops refused addresses; with none left it fails with OutboundRefusedError. */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    try {
      policy.checkHostName(hostname);
    } catch (e) {
      callback(e as Error, '', 0);
      return;
    }
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      let refusal: OutboundRefusedError | undefined;
      const allowed = addresses.filter((a) => {
        try {
          policy.checkAddress(hostname, a.address);
          return true;
        } catch (e) {
          refusal ??= e as OutboundRefusedError;
          return false;
        }
      });
      const first = allowed[0];
      if (!first) {
        callback(refusal ?? new OutboundRefusedError(hostname, undefined, 'no address'), '', 0);
        return;
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
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

/** The OutboundError (e.g. a refusal from the lookup) somewhere in an error's cause chain. */
function findOutboundError(e: unknown): OutboundError | undefined {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    if (cur instanceof OutboundError) return cur;
  }
  return undefined;
}

async function discard(response: { body: { cancel(): Promise<void> } | null }): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Already closed.
  }
}

/**
 * A fetch that refuses private and internal addresses (see above). It follows redirects itself:
 * at most `maxRedirects` (default 5; one more throws), only to http(s) URLs, 303 (and 301/302 after
 * a POST) turning into a GET without a body, 307/308 keeping method and body; to another origin
 * only harmless headers (Accept…, Content-Type, User-Agent, …) are sent on — never Authorization,
 * Cookie or a custom header that may hold a secret. `redirect:
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
        const names: string[] = [];
        headers.forEach((_value, key) => names.push(key));
        for (const h of names) if (!CROSS_ORIGIN_HEADERS.has(h)) headers.delete(h);
      }
      url = next;
    }
  };
}

export interface CappedBody {
  /** The bytes read: at most `maxBytes`. */
  bytes: Uint8Array;
  /** The bytes decoded with the response's charset (UTF-8 when it names none or an unknown one). */
  text: string;
  /** True when the body was longer than `maxBytes` (the rest was not downloaded). */
  truncated: boolean;
}

/** The charset a Content-Type names, if any. */
function charsetOf(contentType: string | null): string | undefined {
  const m = contentType ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType) : null;
  return m?.[1];
}

/** Decodes with the named charset, or UTF-8 when it names none or one TextDecoder does not know. */
function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Reads at most `maxBytes` of a response body, cancelling the stream past the cap. */
export async function readCapped(response: Response, maxBytes: number = toolLimits.responseBytes): Promise<CappedBody> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  if (reader) {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const room = maxBytes - size;
        if (value.byteLength > room) {
          if (room > 0) chunks.push(value.subarray(0, room));
          size += Math.max(room, 0);
          truncated = true;
          break;
        }
        chunks.push(value);
        size += value.byteLength;
      }
    } finally {
      if (truncated) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
  const bytes = Buffer.concat(chunks, size);
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), text: decode(bytes, charsetOf(response.headers.get('content-type'))), truncated };
}

/**
 * A short, clear sentence for what went wrong with an outbound request, for the model: a refusal,
 * a name that does not resolve, a refused or reset connection, a TLS failure, a timeout.
 */
export function describeOutboundError(e: unknown, context: { url: string; timeoutMs?: number; timedOut?: boolean }): string {
  const outbound = findOutboundError(e);
  if (outbound) return outbound.message;
  if (context.timedOut) return `request to ${context.url} timed out after ${context.timeoutMs ?? '?'} ms`;
  const name = e instanceof Error ? e.name : '';
  if (name === 'TimeoutError') return `request to ${context.url} timed out after ${context.timeoutMs ?? '?'} ms`;
  if (name === 'AbortError') return `request to ${context.url} was cancelled`;
  let host = context.url;
  try {
    host = new URL(context.url).host;
  } catch {
    // Keep the URL as given.
  }
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    const code = (cur as NodeJS.ErrnoException).code;
    switch (code) {
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'EAI_NODATA':
      case 'EAI_NONAME':
        return `could not resolve host ${host} (${code})`;
      case 'ECONNREFUSED':
        return `connection to ${host} was refused (ECONNREFUSED)`;
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET':
        return `connection to ${host} was closed unexpectedly (${code})`;
      case 'ETIMEDOUT':
      case 'UND_ERR_CONNECT_TIMEOUT':
        return `connecting to ${host} timed out (${code})`;
      case 'UND_ERR_HEADERS_TIMEOUT':
      case 'UND_ERR_BODY_TIMEOUT':
        return `${host} did not answer in time (${code})`;
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `${host} is unreachable (${code})`;
      default:
        if (code && /CERT|SSL|TLS/i.test(code)) return `TLS error talking to ${host}: ${cur.message} (${code})`;
    }
  }
  const inner = e instanceof Error && e.cause instanceof Error ? e.cause.message : undefined;
  const message = e instanceof Error ? e.message : String(e);
  return `request to ${context.url} failed: ${inner ? `${message}: ${inner}` : message}`;
}
