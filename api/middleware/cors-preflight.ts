import type { Next } from 'koa';
import type { ApiContext } from '../context';

/**
 * Ends a CORS preflight (OPTIONS) with 204 and what it may send, cached 10 minutes; any other
 * request goes on. The caller has set the origin headers already.
 */
export function preflightOrNext(ctx: ApiContext, next: Next, allow: { methods: string; headers: string }): Promise<void> {
  if (ctx.method !== 'OPTIONS') return next();
  ctx.set('Access-Control-Allow-Methods', allow.methods);
  ctx.set('Access-Control-Allow-Headers', allow.headers);
  ctx.set('Access-Control-Max-Age', '600');
  ctx.status = 204;
  return Promise.resolve();
}
