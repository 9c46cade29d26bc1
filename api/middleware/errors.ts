import type { Next } from 'koa';
import { AppError, type ErrorBody, RateLimitRefusal } from '../../domain/errors';
import type { Logger } from '../../infra/logger';
import { isDatabaseUnavailable, isTemporalUnavailable } from '../../infra/outage';
import type { ApiContext } from '../context';
import { loggablePath } from './access-log';

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

/** Seconds a client should wait before trying again after a dependency outage. */
const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** A dependency that is away for now: 503 with a stable code and `Retry-After`, never a 500. */
function fromOutage(err: unknown): AppError | undefined {
  if (isDatabaseUnavailable(err)) return new AppError('database_unavailable', 'PostgreSQL is not answering; try again shortly', OUTAGE_RETRY_AFTER_SECONDS);
  if (isTemporalUnavailable(err)) return new AppError('temporal_unavailable', 'the Temporal cluster is not answering; try again shortly', OUTAGE_RETRY_AFTER_SECONDS);
  return undefined;
}

function render(ctx: ApiContext, err: AppError): void {
  // A server-side failure names the request, so its detail can be found in the log.
  const message = err.status >= 500 && !err.message.includes(`(request ${ctx.state.requestId})`) ? `${err.message} (request ${ctx.state.requestId})` : err.message;
  const body: ErrorBody = { error: { code: err.code, message, retryable: err.retryable } };
  // Every 503 says when to come back, not only the outages classified here.
  const retryAfter = err.retryAfter ?? (err.status === 503 ? OUTAGE_RETRY_AFTER_SECONDS : undefined);
  if (retryAfter !== undefined) {
    body.error.retryAfter = retryAfter;
    ctx.set('Retry-After', String(Math.ceil(retryAfter)));
  }
  ctx.status = err.status;
  ctx.body = body;
}

/**
 * First in the chain: every failure becomes the one JSON error shape (README: HTTP API) with
 * one of the statuses the API answers (400, 401, 404, 409, 429, 5xx, and 413 for an inbound webhook's payload or a full storage quota; README: Error codes). Unexpected errors are logged with the request id and
 * answered as `internal_error` without their message or stack.
 */
export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: ApiContext, next: Next): Promise<void> {
    try {
      await next();
    } catch (e) {
      const known = e instanceof AppError ? e : (fromHttpError(e as HttpishError) ?? fromOutage(e));
      if (known) {
        // The cause (a gRPC or provider error) goes to the log only.
        if (known.status >= 500) logger.warn({ err: e, cause: known.cause, requestId: ctx.state.requestId, path: loggablePath(ctx.path) }, known.message);
        // A request-rate refusal's answer is held outside this handler (limits/refusal-holds.ts).
        if (known instanceof RateLimitRefusal && known.holdMs > 0) ctx.state.holdMs = known.holdMs;
        render(ctx, known);
        return;
      }
      logger.error({ err: e, requestId: ctx.state.requestId, path: loggablePath(ctx.path) }, 'unhandled error');
      render(ctx, new AppError('internal_error', `internal error (request ${ctx.state.requestId})`));
    }
  };
}
