/**
 * Host names of cloud metadata services: refused to outbound requests, whatever
 * OUTBOUND_ALLOW_PRIVATE says, unless it names them (domain/address-policy.ts).
 */
export const METADATA_HOSTS: readonly string[] = ['metadata.google.internal', 'metadata.goog'];
