import { SignJWT } from 'jose';

/** What `signVisitorToken` signs. */
export interface VisitorTokenInput {
  /** The agent's identity secret (`agent.rotateVisitorSecret()`), from your server's configuration. */
  secret: string;
  /** Your id of the visitor: the token's `sub`, and the `user.id` the embed or the chat request gives. */
  id: string;
  name?: string;
  email?: string;
  /** Lifetime in seconds, or a jose time span such as `'15m'`; default one hour. Keep it short: the service refuses an `exp` more than 24 h ahead. */
  expiresIn?: number | string;
}

/**
 * A visitor token for the embed (`data-user-token`, `Service.identify({ token })`) or
 * `POST /v1/public/chat` (`user.token`): an HS256 JWT with `sub` = `id`, optional `name` and
 * `email`, and `exp`. Sign it on your server, for the visitor your own login vouches for: the
 * secret must never reach a browser.
 */
export async function signVisitorToken(input: VisitorTokenInput): Promise<string> {
  const claims: Record<string, string> = {};
  if (input.name !== undefined) claims.name = input.name;
  if (input.email !== undefined) claims.email = input.email;
  const expiresIn = input.expiresIn ?? 3600;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(input.id)
    .setIssuedAt()
    .setExpirationTime(typeof expiresIn === 'number' ? Math.floor(Date.now() / 1000) + expiresIn : expiresIn)
    .sign(new TextEncoder().encode(input.secret));
}
