import type { Next } from 'koa';
import { AppError, type ErrorBody } from '../../domain/errors';
import type { Logger } from '../../infra/logger';
import type { ApiContext } from '../context';

interface HttpishError {
  status?: number;
  expose?: boolean;
  message?: string;
}

/** Errors Koa itself raises (`ctx.throw`) carry a status; keep client errors, hide the rest. */
function fromHttpError(err: HttpishError): AppError | undefined {
  if (err.status === 413) return new AppError('body_too_large', 'the request body is too large');
  if (err.status === 400 && err.expose) return new AppError('invalid_request', err.message ?? 'bad request');
  return undefined;
}

export function render(ctx: ApiContext, err: AppError): void {
  const body: ErrorBody = { error: { code: err.code, message: err.message, retryable: err.retryable } };
  if (err.retryAfter !== undefined) {
    body.error.retryAfter = err.retryAfter;
    ctx.set('Retry-After', String(Math.ceil(err.retryAfter)));
  }
  ctx.status = err.status;
  ctx.body = body;
}

/**
 * First in the chain: every failure becomes the one JSON error shape with a spec status
 * (400, 401, 404, 409, 429, 5xx). Unexpected errors are logged with the request id and
 * answered as `internal_error` without their message or stack.
 */
export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: ApiContext, next: Next): Promise<void> {
    try {
      await next();
    } catch (e) {
      const known = e instanceof AppError ? e : fromHttpError(e as HttpishError);
      if (known) {
        render(ctx, known);
        return;
      }
      logger.error({ err: e, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
      render(ctx, new AppError('internal_error', `internal error (request ${ctx.state.requestId})`));
    }
  };
}
