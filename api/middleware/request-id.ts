import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { ApiContext } from '../context';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every request gets an id (a caller's `X-Request-Id` is kept when sane), echoed back and logged.
 * It returns `next()` rather than awaiting it: nothing is left to do afterwards, and an awaiting
 * frame would stay alive for as long as the request, a held refusal's whole hold included.
 */
export function requestId(ctx: ApiContext, next: Next): Promise<void> {
  const incoming = ctx.get('x-request-id');
  ctx.state.requestId = acceptable.test(incoming) ? incoming : `req_${randomUUID().replaceAll('-', '')}`;
  ctx.set('X-Request-Id', ctx.state.requestId);
  return next();
}
