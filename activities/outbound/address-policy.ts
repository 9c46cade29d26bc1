import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { OutboundError, OutboundRefusedError } from './errors';

/**
 * Which addresses outbound requests may reach. Loopback, private (RFC 1918), link-local (cloud
 * metadata at 169.254.169.254), unique-local, unspecified, carrier-grade NAT, broadcast, multicast
 * and reserved addresses — also as IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4
 * IPv6 — and the host name `metadata.google.internal` are refused, unless the operator allows
 * them with OUTBOUND_ALLOW_PRIVATE (`true`: everything; a list of CIDRs: just those ranges).
 */

const BLOCKED_HOSTS = new Set(['metadata.google.internal', 'metadata.goog']);

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

