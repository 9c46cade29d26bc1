import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { ApiContext } from '../context';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every request gets an id (a caller's `X-Request-Id` is kept when sane), echoed back and logged. */
export async function requestId(ctx: ApiContext, next: Next): Promise<void> {
  const incoming = ctx.get('x-request-id');
  ctx.state.requestId = acceptable.test(incoming) ? incoming : `req_${randomUUID().replaceAll('-', '')}`;
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
}
