import type { Next } from 'koa';
import type { Logger } from '../../infra/logger';
import type { ApiContext } from '../context';

/**
 * Paths whose last segment is a bearer credential: a signed file token (anyone holding it reads
 * the file) and an inbound webhook's token (anyone holding it starts runs). Logged as `[redacted]`.
 */
const CREDENTIAL_PATHS = /^(\/v1\/(?:files|hooks)\/)[^/]+/;

/** The path as it may be logged: credentials in it replaced. */
export function loggablePath(path: string): string {
  return path.replace(CREDENTIAL_PATHS, '$1[redacted]');
}

/** One structured line a request, after it is answered. Headers (and so keys) and tokens in paths are never logged. */
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
          path: loggablePath(ctx.path),
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
          workspaceId: ctx.state.workspaceId,
        },
        'request',
      );
    }
  };
}
