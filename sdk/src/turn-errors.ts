import { ServiceError } from './errors.js';
import type { TurnEvent } from './types/turn-event.js';

/** The `ServiceError`s a `Turn` ends with, other than those the service answers with. */

/** The error an `error` event rejects the awaited turn with: its `code` when it has one, else `turn_failed`. */
export function turnFailed(event: Extract<TurnEvent, { type: 'error' }>): ServiceError {
  return new ServiceError({ code: event.code ?? 'turn_failed', status: event.retryable ? 500 : 400, retryable: event.retryable, message: event.message });
}

export function aborted(signal: AbortSignal): ServiceError {
  return new ServiceError({ code: 'aborted', status: 0, retryable: false, message: 'the turn was aborted', cause: signal.reason });
}

export function broken(message: string, cause: unknown, advice = ''): ServiceError {
  const detail = cause instanceof Error ? `: ${describe(cause)}` : '';
  return new ServiceError({ code: 'connection_error', status: 0, retryable: true, message: `${message}${detail}${advice}`, cause });
}

/** An error's message, with its cause's for a low-level one (fetch's `terminated (other side closed)`). */
export function describe(error: Error): string {
  return !(error instanceof ServiceError) && error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

/** `ms` as seconds for messages: `180 s`, `0.3 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

export function invalidResponse(status: number, what: string, cause?: unknown): ServiceError {
  return new ServiceError({ code: 'invalid_response', status, retryable: false, message: `the service answered the turn with something that is not ${what}`, cause });
}

export function toServiceError(error: unknown, signal: AbortSignal): ServiceError {
  if (error instanceof ServiceError) return error;
  if (signal.aborted) return aborted(signal);
  return broken('the turn failed', error);
}
