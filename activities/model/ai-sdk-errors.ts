import { APICallError } from 'ai';
import { ModelError } from './types';

/** How the AI SDK's failures become ModelErrors: retryable or not, and when to try again. */

const RETRYABLE_NETWORK = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|UND_ERR|fetch failed|terminated|other side closed|socket hang up|network/i;
/** AI SDK errors that say our request itself is wrong: retrying cannot help. */
const DETERMINISTIC_SDK_ERRORS = new Set([
  'AI_InvalidPromptError',
  'AI_InvalidArgumentError',
  'AI_UnsupportedFunctionalityError',
  'AI_InvalidDataContentError',
  'AI_InvalidMessageRoleError',
  'AI_MessageConversionError',
  'AI_NoSuchModelError',
  'AI_LoadAPIKeyError',
]);
const NON_RETRYABLE_ERROR_TYPES = /invalid_request|authentication|permission|not_found|unprocessable/i;

/**
 * Classifies a provider failure. HTTP 408, 409, 429 and 5xx, network failures, malformed or
 * truncated streams and mid-stream error frames (e.g. Anthropic's `overloaded_error`) are
 * retryable; `Retry-After`/`retry-after-ms` sets `retryAfterMs`. Other 4xx are not, and keep the
 * provider's message.
 */
export function toModelError(error: unknown, label: string): ModelError {
  if (error instanceof ModelError) return error;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === undefined || status < 400) {
      // A network failure, or a 200 whose stream broke off ("Failed to process successful response").
      const detail = describeNetworkError(error);
      const message = detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
      return new ModelError(`${label}: ${message}`, true);
    }
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const retryAfterMs = retryable ? parseRetryAfter(error.responseHeaders) : undefined;
    return new ModelError(`${label} (HTTP ${status}): ${error.message}`, retryable, status, retryAfterMs);
  }
  if (error instanceof Error) {
    if (DETERMINISTIC_SDK_ERRORS.has(error.name)) return new ModelError(`${label}: ${error.message}`, false);
    if (error.name === 'AI_JSONParseError' || error.name === 'AI_TypeValidationError') {
      return new ModelError(`${label}: malformed stream chunk from the model`, true);
    }
    const detail = describeNetworkError(error);
    return new ModelError(`${label}: ${detail ?? error.message}`, true);
  }
  if (isPlainObject(error)) {
    // A mid-stream error frame, e.g. {"type":"overloaded_error","message":"Overloaded"}.
    const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
    const type = typeof error.type === 'string' ? error.type : typeof error.code === 'string' ? error.code : '';
    return new ModelError(`${label}: ${message}`, !NON_RETRYABLE_ERROR_TYPES.test(type));
  }
  return new ModelError(`${label}: ${String(error)}`, true);
}

/** The innermost network error text in a cause chain (`connect ECONNREFUSED 127.0.0.1:9`). */
function describeNetworkError(error: Error): string | undefined {
  let current: unknown = error;
  let found: string | undefined;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (RETRYABLE_NETWORK.test(current.message) || (typeof code === 'string' && RETRYABLE_NETWORK.test(code))) {
      found = current.message;
    }
    current = current.cause;
  }
  return found;
}

/** `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date; milliseconds, ≥ 0. */
function parseRetryAfter(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]?.trim();
  const ms = get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  const value = get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
