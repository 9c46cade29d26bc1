import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed file URLs: `<payload>.<signature>`, both base64url. The payload names the file space,
 * the path, whether to download and when it expires; the signature is HMAC-SHA256 under the
 * operator's URL_SIGNING_KEY. Anything expired or altered reads as absent.
 */
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

export function signFileGrant(key: string, grant: FileGrant): string {
  const payload = Buffer.from(JSON.stringify(grant)).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

export function verifyFileGrant(key: string, token: string, nowSeconds = Date.now() / 1000): FileGrant | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as FileGrant;
    return typeof grant.exp === 'number' && grant.exp > nowSeconds ? grant : undefined;
  } catch {
    return undefined;
  }
}
