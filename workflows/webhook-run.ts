import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { WebhookDeliveryActivities } from '../activities/webhook-delivery';
import { WebhookDeliveryFailure, type WebhookDeliveryOutcome, type WebhookRunInput, type WebhookRunResult } from '../domain/runs/webhook-run';
import { runChildTurn } from './child-turn';
import { summaries } from './summaries';

/**
 * One accepted inbound webhook request (docs/http-api.md: Webhooks). The API has already written the
 * conversation, the message and the running turn; this runs the ordinary turn as a child workflow
 * (id `turn-<turnId>`: it streams, debits and resumes like any turn), then, when the trigger has a
 * `url`, delivers the result as an activity retried with backoff. An undeliverable result is
 * recorded in the run's result, not a failed run.
 */
export async function webhookRunWorkflow(input: WebhookRunInput): Promise<WebhookRunResult> {
  await runChildTurn({ ...input, origin: 'webhook' });
  const ids = { turnId: input.turnId, conversationId: input.conversationId };
  if (!input.url) return ids;
  return { ...ids, delivery: await deliver(input, input.url) };
}

async function deliver(input: WebhookRunInput, url: string): Promise<WebhookDeliveryOutcome> {
  const { deliverWebhookResult } = proxyActivities<WebhookDeliveryActivities>({
    startToCloseTimeout: '30 seconds',
    retry: {
      initialInterval: input.delivery.initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '10 minutes',
      maximumAttempts: input.delivery.maxAttempts,
      nonRetryableErrorTypes: Object.values(WebhookDeliveryFailure),
    },
    summary: summaries.deliverWebhook,
  });
  try {
    const status = await deliverWebhookResult({
      url,
      webhookId: input.webhookId,
      agentId: input.agentId,
      conversationId: input.conversationId,
      turnId: input.turnId,
      triggerIndex: input.triggerIndex,
    });
    return { delivered: true, status };
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    return { delivered: false, reason: cause instanceof Error ? cause.message : 'the delivery failed' };
  }
}
