import { SESSION_COOKIE } from '../../db/repositories/sessions';
import type { ApiContext } from '../context';

/**
 * The session cookie (docs/security.md, "Sessions"): HttpOnly (no script reads it), SameSite=Lax
 * (sent on a top-level navigation from another site — the identity provider's redirect back —
 * never on another site's form POST or fetch), Path=/, Secure when the server is reached over
 * HTTPS (`baseURL` is https, or the request came over TLS). It lives until the session's absolute
 * expiry; the server ends it sooner when idle. Written by hand: Koa's cookie helper refuses
 * Secure on a request it sees as http (a TLS terminator in front).
 */
export function setSessionCookie(ctx: ApiContext, token: string, opts: { baseURL: string; expiresAt: Date }): void {
  const maxAge = Math.max(0, Math.floor((opts.expiresAt.getTime() - Date.now()) / 1000));
  ctx.append('Set-Cookie', attributes(ctx, `${SESSION_COOKIE}=${token}`, opts.baseURL, maxAge));
}

/** Removes the session cookie from the browser (sign-out; an ended session's cookie). */
export function clearSessionCookie(ctx: ApiContext, opts: { baseURL: string }): void {
  ctx.append('Set-Cookie', attributes(ctx, `${SESSION_COOKIE}=`, opts.baseURL, 0));
}

function attributes(ctx: ApiContext, pair: string, baseURL: string, maxAgeSeconds: number): string {
  const parts = [pair, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (baseURL.startsWith('https:') || ctx.secure) parts.push('Secure');
  return parts.join('; ');
}
