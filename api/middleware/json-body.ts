import getRawBody from 'raw-body';
import type { Next } from 'koa';
import { AppError } from '../../domain/errors';
import type { ApiContext } from '../context';
import { parseJsonBody } from '../body/json-text';
import { decodedRequest, readFailure } from '../body/raw-body';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, set by `jsonBody` on routes that declare one. */
    body?: unknown;
  }
}

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * JSON bodies only (`application/json`, `+json`), up to `limitBytes` decoded; another type leaves
 * the body `{}` for validation to name what is missing. Failures are our codes: `body_too_large`,
 * `body_too_deep` (checked on the text, before parsing) or `invalid_json`.
 */
export function jsonBody(limitBytes: number) {
  return async function readJsonBody(ctx: ApiContext, next: Next): Promise<void> {
    if (!PARSED_METHODS.has(ctx.method) || ctx.request.body !== undefined) return next();
    if (!ctx.is('application/json', '+json')) {
      ctx.request.body = {};
      return next();
    }
    const { source, length, encoding } = decodedRequest(ctx);
    let text: string;
    try {
      text = await getRawBody(source, { limit: limitBytes, encoding: 'utf-8', ...(length ? { length } : {}) });
    } catch (e) {
      throw readFailure(e, encoding, () => new AppError('body_too_large', `the request body is larger than ${limitBytes} bytes`));
    }
    ctx.request.body = parseJsonBody(text, () => new AppError('invalid_json', 'the request body is not valid JSON'));
    return next();
  };
}
