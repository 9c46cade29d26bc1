import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeKeyring, KEYRING_FORMAT } from './keyring';

/**
 * Signed file URLs: `<payload>.<signature>`, both base64url. The payload names the file space,
 * the path, whether to download and when it expires; the signature is HMAC-SHA256 under the
 * operator's URL_SIGNING_KEY. Anything expired or altered reads as absent.
 *
 * URL_SIGNING_KEY is a ring (domain/keyring.ts): new URLs are signed with the first key, and a URL
 * signed with any key of the ring verifies, so after a rotation the URLs handed out under the
 * previous key keep working until they expire (at most MAX_URL_TTL_SECONDS): keep the previous
 * key in the ring that long.
 */
/** The URL_SIGNING_KEY ring, current first. */
export type UrlSigningKeys = readonly string[];

export const URL_SIGNING_KEY_FORMAT = `at least 32 characters of random text; ${KEYRING_FORMAT}`;

/** The keys of URL_SIGNING_KEY text, or a message naming the entry that is too short. */
export function parseUrlSigningKeys(text: string): { keys: string[] } | { error: string } {
  return decodeKeyring(text, (key) => (key.length >= 32 ? key : undefined), URL_SIGNING_KEY_FORMAT);
}

export interface FileGrant {
  workspaceId: string;
  space: string;
  path: string;
  download: boolean;
  /** Expiry, Unix seconds. */
  exp: number;
}

export const DEFAULT_URL_TTL_SECONDS = 3600;
export const MAX_URL_TTL_SECONDS = 7 * 24 * 3600;

function sign(key: string, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

export function signFileGrant(keys: UrlSigningKeys, grant: FileGrant): string {
  const [current] = keys;
  if (current === undefined) throw new Error('signFileGrant: no URL signing key');
  const payload = Buffer.from(JSON.stringify(grant)).toString('base64url');
  return `${payload}.${sign(current, payload)}`;
}

function signedByOneOf(keys: UrlSigningKeys, payload: string, signature: string): boolean {
  const given = Buffer.from(signature);
  return keys.some((key) => {
    const expected = Buffer.from(sign(key, payload));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

export function verifyFileGrant(keys: UrlSigningKeys, token: string, nowSeconds = Date.now() / 1000): FileGrant | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  if (!signedByOneOf(keys, payload, signature)) return undefined;
  try {
    const grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as FileGrant;
    return typeof grant.exp === 'number' && grant.exp > nowSeconds ? grant : undefined;
  } catch {
    return undefined;
  }
}
