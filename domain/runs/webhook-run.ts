/**
 * What the API, the webhook-run workflow and its delivery activity share: the run's input, its
 * delivery policy and result. Pure declarations, so the workflow bundle may import them.
 */
import type { TurnLimits } from './turn';

/** How a run's result is delivered to the trigger's `url` (docs/http-api.md: Webhooks). */
export interface WebhookDeliveryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Wait before the second attempt; doubled each time, at most 10 minutes. */
  initialIntervalMs: number;
}

export interface WebhookRunInput {
  workspaceId: string;
  agentId: string;
  conversationId: string;
  turnId: string;
  webhookId: string;
  triggerIndex: number;
  /** Where the result is POSTed; absent: no delivery. Fixed when the request was accepted. */
  url?: string;
  limits: TurnLimits;
  delivery: WebhookDeliveryPolicy;
  /** The queue the run's turn (a child workflow) runs on. */
  turnsQueue: string;
}

/** What the delivery did: the receiver's 2xx status, or why nothing (more) was sent. */
export type WebhookDeliveryOutcome = { delivered: true; status: number } | { delivered: false; reason: string };

export interface WebhookRunResult {
  turnId: string;
  conversationId: string;
  /** Absent when the trigger has no `url`. */
  delivery?: WebhookDeliveryOutcome;
}

/** Failure types of the delivery activity that no retry can mend (ApplicationFailure.type). */
export const WebhookDeliveryFailure = {
  /** The receiver answered a 4xx other than 408 and 429. */
  rejected: 'webhook_rejected',
  /** The URL is refused by the outbound-address policy, or is not a URL. */
  refused: 'webhook_refused',
  /** The webhook is gone (trigger removed, agent deleted) or has no signing secret. */
  notDeliverable: 'webhook_not_deliverable',
} as const;

/**
 * The run's workflow id (also its conversation's run key): `requestKey` is derived from the
 * request's idempotency key when it has one, so a repeat cannot start a second run.
 */
export const webhookRunWorkflowId = (webhookId: string, requestKey: string) => `webhook-run-${webhookId}-${requestKey}`;
