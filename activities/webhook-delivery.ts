import { ApplicationFailure } from '@temporalio/activity';
import type { TurnStatus } from '../db/turns/rows';
import { Webhook } from 'standardwebhooks';
import type { Repositories } from '../db/repositories';
import { iso } from '../db/rows';
import type { SecretBox } from '../domain/secret-box';
import { WebhookDeliveryFailure, type WebhookRunInput } from '../domain/runs/webhook-run';
import { openSigningSecret } from '../domain/webhooks';
import { findOutboundError } from './outbound/errors';
import type { SafeFetch } from './outbound/safe-fetch';

interface WebhookDeliveryDeps {
  repos: Repositories;
  box: SecretBox;
  /** The outbound-safe fetch tools use: deliveries obey the same address policy. */
  fetch: SafeFetch;
  /** One attempt's HTTP timeout. */
  timeoutMs: number;
}

type DeliveryInput = Pick<WebhookRunInput, 'webhookId' | 'agentId' | 'conversationId' | 'turnId' | 'triggerIndex'> & { url: string };

/** The JSON body of a delivery (docs/http-api.md: Webhooks). */
interface DeliveryBody {
  type: 'turn.finished';
  timestamp: string;
  data: {
    turnId: string;
    agentId: string;
    conversationId: string;
    webhookId: string;
    triggerIndex: number;
    status: Exclude<TurnStatus, 'running'>;
    reply?: string;
    error?: { message: string; retryable: boolean };
  };
}

const stop = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/** The `ops` queue's delivery of a webhook run's result to the trigger's `url`. */
export function createWebhookDeliveryActivities(deps: WebhookDeliveryDeps) {
  /** The finished turn as the body says it; a turn still running is retried (it cannot be, after its workflow). */
  async function body(input: DeliveryInput): Promise<DeliveryBody> {
    const turn = await deps.repos.turns.get({ turnId: input.turnId });
    if (!turn) throw stop(WebhookDeliveryFailure.notDeliverable, `turn ${input.turnId} is gone`);
    if (turn.status === 'running') throw new Error(`turn ${input.turnId} has not finished`);
    const [last] = await deps.repos.turns.eventsAfter({ turnId: input.turnId, seq: turn.last_seq - 1, limit: 1 });
    const terminal = last?.event;
    const data: DeliveryBody['data'] = {
      turnId: input.turnId,
      agentId: input.agentId,
      conversationId: input.conversationId,
      webhookId: input.webhookId,
      triggerIndex: input.triggerIndex,
      status: turn.status,
      ...(terminal?.type === 'done' ? { reply: terminal.reply } : {}),
      ...(terminal?.type === 'error' ? { error: { message: terminal.message, retryable: terminal.retryable } } : {}),
    };
    return { type: 'turn.finished', timestamp: iso(turn.finished_at ?? turn.started_at), data };
  }

  return {
    /**
     * POSTs the run's result, signed the Standard Webhooks way with the webhook's current secret
     * (`webhook-id` is `msg_<turnId>` on every attempt, so receivers can drop repeats). Answers the
     * receiver's 2xx status. Non-2xx (redirects included) and network errors throw, and Temporal
     * retries with backoff; a 4xx other than 408 and 429, a refused address, a missing secret or a
     * deleted webhook stop at once.
     */
    async deliverWebhookResult(input: DeliveryInput): Promise<number> {
      const hook = await deps.repos.webhooks.byId({ id: input.webhookId });
      if (!hook) throw stop(WebhookDeliveryFailure.notDeliverable, 'the webhook is gone (trigger removed or agent deleted)');
      if (!hook.signing_secret_sealed) throw stop(WebhookDeliveryFailure.notDeliverable, 'the webhook has no signing secret: mint one to receive deliveries');
      const signer = new Webhook(openSigningSecret(deps.box, hook.id, hook.signing_secret_sealed));
      const payload = JSON.stringify(await body(input));
      const id = `msg_${input.turnId}`;
      const at = new Date();
      let response: Response;
      try {
        response = await deps.fetch(input.url, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': signer.sign(id, at, payload),
          },
          body: payload,
          signal: AbortSignal.timeout(deps.timeoutMs),
        });
      } catch (e) {
        const outbound = findOutboundError(e);
        if (outbound) throw stop(WebhookDeliveryFailure.refused, outbound.message);
        throw e;
      }
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return response.status;
      const message = `the receiver answered HTTP ${response.status}`;
      if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) throw stop(WebhookDeliveryFailure.rejected, message);
      throw new Error(message);
    },
  };
}
export type WebhookDeliveryActivities = ReturnType<typeof createWebhookDeliveryActivities>;
