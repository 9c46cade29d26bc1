import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { AddressRules } from '../../domain/address-policy';
import { OutboundRefusedError } from './errors';

export { blockedRange } from '../../domain/address-policy';

/** The policy of one SafeFetch (the rule is domain/address-policy.ts): refusals as OutboundRefusedError. */
export class AddressPolicy extends AddressRules {
  /** Throws OutboundRefusedError when `address` (which `host` resolved to) may not be reached. */
  checkAddress(host: string, address: string): void {
    const reason = this.addressRefusal(address);
    if (reason !== undefined) throw new OutboundRefusedError(host, address, reason);
  }

  /** Throws for refused names (cloud metadata) unless listed by name; addresses are checked after resolution. */
  checkHostName(host: string): void {
    if (this.refusesHostName(host)) throw new OutboundRefusedError(host, undefined, 'cloud metadata host');
  }
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
