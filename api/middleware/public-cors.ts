import type { Next } from 'koa';
import type { ApiContext } from '../context';
import { preflightOrNext } from './cors-preflight';

/** The routes anyone's browser may call: the public API. Nothing key-authenticated is ever CORS-open. */
export const isPublicPath = (path: string) => path.startsWith('/v1/public/');

/**
 * Open CORS (`*`) on the public routes only, preflight included. Headers are set before the
 * route runs, so error answers (429 with `retryAfter`) are readable by the page too. No
 * credentials: public calls authenticate with the publishable token in `Authorization`.
 * An agent with allowed origins narrows this once its route knows the agent (api/public-origins.ts);
 * a preflight carries no token, so it stays `*`: it lets a page send, and the request itself is
 * then refused, with no grant, when its origin is not listed.
 */
export async function publicCors(ctx: ApiContext, next: Next): Promise<void> {
  if (!isPublicPath(ctx.path)) return next();
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Expose-Headers', 'X-Turn-Id, X-Conversation-Id, X-Request-Id, Retry-After');
  return preflightOrNext(ctx, next, { methods: 'GET, POST, OPTIONS', headers: 'Authorization, Content-Type, Last-Event-ID, X-Visitor-Token' });
}
