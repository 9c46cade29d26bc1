import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { METADATA_HOSTS } from '../../domain/metadata-hosts';
import { OutboundError, OutboundRefusedError } from './errors';

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

/** The policy of one SafeFetch: is this address (or host name) allowed? */
export class AddressPolicy {
  private readonly allowAll: boolean;
  private readonly allowed: Cidr[] = [];
  private readonly allowedHosts = new Set<string>();

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
      if (!cidr) throw new OutboundError(`OUTBOUND_ALLOW_PRIVATE: "${text}" is not a CIDR such as 10.1.0.0/16 or ::1/128`);
      this.allowed.push(cidr);
    }
  }

  /** Throws OutboundRefusedError when `address` (which `host` resolved to) may not be reached. */
  checkAddress(host: string, address: string): void {
    const ip = parseAddress(address);
    const sensitive = ip && SENSITIVE_RANGES.find(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
    if (ip && sensitive) {
      // Only an entry inside the sensitive range names it explicitly: `true` or 0.0.0.0/0 do not.
      const listed = this.allowed.some(([range, bits]) => bits >= sensitive[1] && range.kind() === ip.kind() && ip.match(range, bits));
      if (!listed) throw new OutboundRefusedError(host, address, blockedRange(address) ?? 'link-local');
      return;
    }
    if (this.allowAll) return;
    const reason = blockedRange(address);
    if (reason === undefined) return;
    if (ip && this.allowed.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))) return;
    throw new OutboundRefusedError(host, address, reason);
  }

  /** Throws for refused names (cloud metadata) unless listed by name; addresses are checked after resolution. */
  checkHostName(host: string): void {
    const name = normalizeHost(host);
    if (BLOCKED_HOSTS.has(name) && !this.allowedHosts.has(name)) throw new OutboundRefusedError(host, undefined, 'cloud metadata host');
  }
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

/** A `net.connect` lookup that drops refused addresses; with none left it fails with OutboundRefusedError. */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
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

