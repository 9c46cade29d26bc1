import { timingSafeEqual } from 'node:crypto';
import type { Next } from 'koa';
import { bearerToken } from '../../domain/bearer';
import { apiKeyPattern } from '../../db/repositories/api-keys';
import { SESSION_COOKIE, sessionTokenPattern, type SessionsRepository } from '../../db/repositories/sessions';
import { AppError } from '../../domain/errors';
import type { ApiContext } from '../context';
import type { ApiKeyCache } from '../key-cache';
import { digest, type Limits } from '../limits';

/** The header a cookie-authenticated change carries its CSRF token in (synchronizer token: docs/security.md). */
const CSRF_HEADER = 'x-csrf-token';
/** Methods that change nothing: no CSRF token needed. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** A key's last use is written at most this often per key by one process. */
const KEY_TOUCH_EVERY_MS = 60_000;

interface AuthDeps {
  apiKeys: Pick<ApiKeyCache, 'resolve'>;
  /** Records a key's use (`ApiKeysRepository.touch`); failures are the caller's to log. */
  touchKey: (keyId: string) => Promise<void>;
  sessions: Pick<SessionsRepository, 'resolve'>;
  sessionIdleMs: number;
  limits: Pick<Limits, 'apiKey' | 'failures'>;
  onTouchError: (err: unknown) => void;
}

/**
 * Authenticates a `/v1` route by `Authorization: Bearer sk_…` (an API key, with its role) or, when
 * there is no Authorization header, by the `ha_session` cookie of a signed-in member (their role
 * in the session's workspace); sets `ctx.state.actor`. Anything else is a 401. The role a route
 * needs is checked after this (routing.ts), so a 403 always means "known, but not allowed".
 *
 * Keys: a well-formed key is counted against its rate limits (429 `rate_limited` beyond them) before it
 * is looked up, so a flood that is over its limits is refused from memory without a query.
 * `apiKeys` is the process's key cache (key-cache.ts): a known live key costs no lookup. An unknown
 * key is a failure of the client's address (limits/auth-failures.ts); past their limit, the
 * address is refused before its key is counted or looked up — unless this process found that key
 * live in the last day, so another client's guesses from a shared address never lock it out.
 *
 * Sessions: the same failure memory and rate limits apply to the session token. A change (any
 * method but GET, HEAD, OPTIONS) needs the session's CSRF token in `X-CSRF-Token`: a page of
 * another site can make the browser send the cookie, never read the token.
 */
export function authenticateRequest(deps: AuthDeps) {
  const { failures } = deps.limits;
  const touched = new Map<string, number>();
  const touchKey = (keyId: string) => {
    const now = Date.now();
    if ((touched.get(keyId) ?? 0) > now - KEY_TOUCH_EVERY_MS) return;
    if (touched.size > 10_000) touched.clear();
    touched.set(keyId, now);
    deps.touchKey(keyId).catch(deps.onTouchError);
  };

  async function byKey(ctx: ApiContext, header: string): Promise<void> {
    const key = bearerToken(header);
    if (!key || !apiKeyPattern.test(key)) throw new AppError('invalid_api_key', 'the API key is malformed');
    const keyDigest = digest(key);
    const presented = `key:${keyDigest}`;
    await failures.check(ctx.ip, presented);
    await deps.limits.apiKey(keyDigest);
    const resolved = await deps.apiKeys.resolve({ apiKey: key });
    if (!resolved) {
      failures.failed(ctx.ip, presented);
      throw new AppError('invalid_api_key', 'the API key is unknown or revoked');
    }
    failures.found(presented);
    touchKey(resolved.keyId);
    ctx.state.workspaceId = resolved.workspaceId;
    ctx.state.keyId = resolved.keyId;
    ctx.state.actor = { kind: 'key', id: resolved.keyId, role: resolved.role, workspaceId: resolved.workspaceId };
  }

  async function bySession(ctx: ApiContext, token: string): Promise<void> {
    if (!sessionTokenPattern.test(token)) throw new AppError('invalid_session', 'the session cookie is malformed: sign in again');
    const tokenDigest = digest(token);
    const presented = `session:${tokenDigest}`;
    await failures.check(ctx.ip, presented);
    await deps.limits.apiKey(tokenDigest);
    const session = await deps.sessions.resolve({ token, idleMs: deps.sessionIdleMs });
    if (!session) {
      failures.failed(ctx.ip, presented);
      throw new AppError('invalid_session', 'the session has ended (signed out, expired, or the member was removed or had their role changed): sign in again');
    }
    failures.found(presented);
    if (!SAFE_METHODS.has(ctx.method) && !sameToken(ctx.get(CSRF_HEADER), session.csrfToken)) {
      throw new AppError('csrf_token_invalid', 'a change made with a session cookie needs the X-CSRF-Token header (its value is `csrfToken` of GET /v1/session)');
    }
    ctx.state.workspaceId = session.workspaceId;
    ctx.state.keyId = session.memberId;
    ctx.state.actor = { kind: 'member', id: session.memberId, role: session.role, workspaceId: session.workspaceId, sessionId: session.sessionId };
  }

  return async function authenticate(ctx: ApiContext, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    const cookie = header ? undefined : ctx.cookies.get(SESSION_COOKIE);
    if (header) await byKey(ctx, header);
    else if (cookie) await bySession(ctx, cookie);
    else throw new AppError('missing_api_key', 'send the API key as `Authorization: Bearer <key>`, or sign in');
    await next();
  };
}

function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
