import { ApplicationFailure } from '@temporalio/common';
import { TurnFailure } from '../domain/runs/turn';
import { ModelError } from './model/types';

/**
 * How a provider's failure reaches Temporal, one rule for every activity that calls a model: a
 * failure that may pass (429, 5xx, network) is retried, after the provider's Retry-After when it
 * sent one; one that cannot (400, 401…) ends the activity at once, as no retry can mend it.
 */
function providerFailure(e: ModelError, type: string, details?: unknown[]): ApplicationFailure {
  return ApplicationFailure.create({
    message: e.message,
    type,
    nonRetryable: !e.retryable,
    ...(e.retryAfterMs !== undefined ? { nextRetryDelay: e.retryAfterMs } : {}),
    ...(details ? { details } : {}),
  });
}

/**
 * A model step's failure: the provider's as `model_unavailable` (retried) or `model_rejected`
 * (final), with its HTTP status; anything else as it is, so Temporal retries it.
 */
export function modelStepFailure(e: unknown): Error {
  if (e instanceof ModelError) {
    return providerFailure(e, e.retryable ? TurnFailure.modelUnavailable : TurnFailure.modelRejected, [{ status: e.status ?? null }]);
  }
  return e instanceof Error ? e : new Error(String(e));
}

/** An embedding call's failure: the provider's as `EmbeddingsFailed`; anything else unchanged. */
export function embeddingFailure(e: unknown): unknown {
  return e instanceof ModelError ? providerFailure(e, 'EmbeddingsFailed') : e;
}
