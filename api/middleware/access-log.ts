import type { Next } from 'koa';
import type { Logger } from '../../infra/logger';
import type { ApiContext } from '../context';

/** One structured line a request, after it is answered. Headers (and so keys) are never logged. */
export function accessLog(logger: Logger) {
  return async function logRequest(ctx: ApiContext, next: Next): Promise<void> {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
          workspaceId: ctx.state.workspaceId,
        },
        'request',
      );
    }
  };
}
