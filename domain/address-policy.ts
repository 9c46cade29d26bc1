import ipaddr from 'ipaddr.js';
import { METADATA_HOSTS } from './metadata-hosts';

/**
 * Which addresses outbound requests may reach. Loopback, private (RFC 1918), link-local (cloud
 * metadata at 169.254.169.254), unique-local, unspecified, carrier-grade NAT, broadcast, multicast
 * and reserved addresses — also as IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4
 * IPv6 — the local-use NAT64 prefix (64:ff9b:1::/48) and the cloud metadata host names are refused, unless the operator allows them with
 * OUTBOUND_ALLOW_PRIVATE (`true`: every private range; a list of CIDRs: just those ranges).
 *
 * Link-local addresses (169.254.0.0/16, fe80::/10) and cloud metadata (169.254.169.254,
 * fd00:ec2::254, metadata.google.internal) stay refused even with `true`: reaching them hands a
 * tool the host's cloud credentials. Only an explicit entry allows them — a CIDR inside their range
 * (`169.254.169.254/32`, not `0.0.0.0/0`) or the host name itself, e.g. `true,169.254.169.254/32`.
 *
 * Pure, so both sides use the one rule: the worker's outbound fetch refuses with it
 * (activities/outbound/address-policy.ts), and the API warns with it when an agent names a tool
 * URL that will be refused (domain/tool-url-warnings.ts).
 */

const BLOCKED_HOSTS = new Set(METADATA_HOSTS);
/** Ranges `true` does not open: link-local and AWS's IPv6 metadata address (inside unique-local fd00::/8). */
const SENSITIVE_RANGES = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128'].map((c) => parseCidr(c)!);
/**
 * Local-use NAT64 (RFC 8215): translates to whatever IPv4 network its operator chose, at any
 * RFC 6052 prefix length, so the address cannot be judged by the IPv4 it seems to embed.
 */
const LOCAL_NAT64 = parseCidr('64:ff9b:1::/48')!;

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** Parses one CIDR (or a bare address, taken as a single host); undefined when it is not one. */
function parseCidr(text: string): Cidr | undefined {
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
  if (v6.match(LOCAL_NAT64)) return 'localUseNat64';
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

/** An IP address (IPv4-mapped IPv6 as IPv4), or undefined. */
function parseAddress(address: string): Address | undefined {
  try {
    return ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return undefined;
  }
}

function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, '');
}

/** `localhost` and its subdomains (RFC 6761): every resolver answers them with loopback. */
const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** The rule of OUTBOUND_ALLOW_PRIVATE: which addresses and host names are refused. */
export class AddressRules {
  private readonly allowAll: boolean;
  private readonly allowed: Cidr[] = [];
  private readonly allowedHosts = new Set<string>();

  /** Throws a plain Error for an entry that is not a CIDR (config/env.ts refuses it first). */
  constructor(allowPrivate: boolean | readonly string[]) {
    this.allowAll = allowPrivate === true || (Array.isArray(allowPrivate) && allowPrivate.includes('true'));
    if (!Array.isArray(allowPrivate)) return;
    for (const text of allowPrivate) {
      if (text === 'true') continue;
      if (BLOCKED_HOSTS.has(normalizeHost(text))) {
        this.allowedHosts.add(normalizeHost(text));
        continue;
      }
      const cidr = parseCidr(text);
      if (!cidr) throw new Error(`OUTBOUND_ALLOW_PRIVATE: "${text}" is not a CIDR such as 10.1.0.0/16 or ::1/128`);
      this.allowed.push(cidr);
    }
  }

  /** Why `address` may not be reached (its range, e.g. `loopback`), or undefined when it may. */
  addressRefusal(address: string): string | undefined {
    const ip = parseAddress(address);
    const sensitive = ip && SENSITIVE_RANGES.find(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
    if (ip && sensitive) {
      // Only an entry inside the sensitive range names it explicitly: `true` or 0.0.0.0/0 do not.
      const listed = this.allowed.some(([range, bits]) => bits >= sensitive[1] && range.kind() === ip.kind() && ip.match(range, bits));
      return listed ? undefined : (blockedRange(address) ?? 'link-local');
    }
    if (this.allowAll) return undefined;
    const reason = blockedRange(address);
    if (reason === undefined) return undefined;
    if (ip && this.allowed.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))) return undefined;
    return reason;
  }

  /** Whether `host` is a refused name (cloud metadata) not listed by name; addresses are judged after resolution. */
  refusesHostName(host: string): boolean {
    const name = normalizeHost(host);
    return BLOCKED_HOSTS.has(name) && !this.allowedHosts.has(name);
  }

  /**
   * Why a request to `url` will be refused, judged without resolving names: a refused metadata
   * name, a literal refused address, or `localhost` (loopback wherever it is resolved). Undefined
   * when nothing is known to be refused (a name may still resolve to a refused address).
   */
  urlRefusal(url: URL): string | undefined {
    const host = normalizeHost(url.hostname);
    if (this.refusesHostName(host)) return 'cloud metadata host';
    const literal = host.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(literal)) return this.addressRefusal(literal);
    return isLocalhostName(host) ? this.addressRefusal('127.0.0.1') : undefined;
  }
}
