import { createHash } from 'node:crypto';
import type { ApiContext } from '../context';

/**
 * The cookie that binds an OAuth consent to the browser that opened its link: set by the start
 * step, read by the callback. One per consent (named from its state's hash), so two consents
 * started side by side do not overwrite each other; HttpOnly, SameSite=Lax (the provider's
 * redirect back is a top-level GET), Secure on https, scoped to the callback, gone at the state's expiry.
 */
const cookieName = (state: string) => `ha_oauth_${createHash('sha256').update(state).digest('hex').slice(0, 16)}`;

/** Written by hand: Koa's cookie helper refuses Secure on a request it sees as http (a TLS terminator in front). */
function setCookie(ctx: ApiContext, name: string, value: string, callbackUrl: URL, maxAgeSeconds: number): void {
  const attributes = [`${name}=${value}`, `Path=${callbackUrl.pathname}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (callbackUrl.protocol === 'https:') attributes.push('Secure');
  ctx.append('Set-Cookie', attributes.join('; '));
}

export function setStateCookie(ctx: ApiContext, state: string, callbackUrl: URL, maxAgeSeconds: number): void {
  setCookie(ctx, cookieName(state), state, callbackUrl, maxAgeSeconds);
}

/** The state this browser started, if its cookie for `state` is there; the cookie is cleared. */
export function takeStateCookie(ctx: ApiContext, state: string | null, callbackUrl: URL): string | undefined {
  if (!state) return undefined;
  const value = ctx.cookies.get(cookieName(state));
  if (value !== undefined) setCookie(ctx, cookieName(state), '', callbackUrl, 0);
  return value;
}
