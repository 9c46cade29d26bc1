import getRawBody from 'raw-body';
import { z } from 'zod';
import { AppError } from '../../domain/errors';
import { signingSecretSchema, webhookAcceptedSchema, webhookSchema } from '../../domain/webhooks';
import type { WebhookRuns } from '../../services/webhook-runs';
import type { WebhooksService } from '../../services/webhooks';
import { type ApiContext, workspaceOf } from '../context';
import { refuseDeepJson } from '../body/json-text';
import type { Limits } from '../limits';
import { type ApiRouter, listOf, listSchema } from '../routing';
import { parseInput } from '../body/validate';
import { agentIdParam } from './agents';

const webhookParams = agentIdParam.extend({ webhookId: z.string().min(1).max(100) });
const tokenParam = z.object({ token: z.string().min(1).max(200) });

/** Any JSON object or array: what a webhook sender posts. */
const payloadSchema = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())], { error: 'a JSON object or array' });

/** `Idempotency-Key`, else a Standard Webhooks sender's `webhook-id`: printable ASCII, 1 to 255 characters. */
function idempotencyKey(ctx: ApiContext): string | undefined {
  for (const name of ['idempotency-key', 'webhook-id']) {
    const value = ctx.get(name);
    if (!value) continue;
    if (!/^[\x21-\x7e]{1,255}$/.test(value)) throw new AppError('invalid_request', `header.${name}: 1 to 255 printable ASCII characters`);
    return value;
  }
  return undefined;
}

/** The payload: JSON (by Content-Type and by parse), at most `limitBytes`, storable text only. */
async function readPayload(ctx: ApiContext, limitBytes: number): Promise<unknown> {
  if (!ctx.is('application/json', '+json')) throw new AppError('invalid_json', 'send the payload as JSON (Content-Type: application/json)');
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get('content-length') || undefined, encoding: 'utf8' });
  } catch (e) {
    const type = (e as { type?: string }).type;
    if (type === 'entity.too.large') throw new AppError('payload_too_large', `webhook payloads are at most ${limitBytes} bytes`);
    if (type === 'request.size.invalid') throw new AppError('invalid_request', 'body: shorter than its Content-Length');
    throw e;
  }
  refuseDeepJson(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'the payload is not valid JSON');
  }
  return parseInput(payloadSchema, value, 'body');
}

interface WebhookRouteDeps {
  webhooks: WebhooksService;
  runs: WebhookRuns;
  limits: Pick<Limits, 'webhook'>;
  bodyLimitBytes: number;
  publicBaseURL: string | undefined;
}

/**
 * Webhook triggers (README: Webhooks): the inbound URL anyone holding it may POST to (the token is
 * the credential; no API key), and the key-authenticated rotation of its URL and signing secret.
 */
export function webhookRoutes(r: ApiRouter, deps: WebhookRouteDeps): void {
  r.add(
    {
      method: 'post', path: '/v1/hooks/:token', operationId: 'receiveWebhook', tag: 'Webhooks', auth: 'none',
      summary: "A webhook trigger's inbound URL: the JSON payload starts one run of the agent; answers at once",
      params: tokenParam, limit: 'public-reads',
      rawBody: { contentType: 'application/json', description: 'Any JSON object or array, at most WEBHOOK_BODY_LIMIT_BYTES. Optional `Idempotency-Key` (or `webhook-id`) header: a repeat answers the first run.' },
      response: { status: 202, description: 'The run started (the turn runs on; follow it with GET /v1/turns/{turnId}/events)', schema: webhookAcceptedSchema },
      errors: ['webhook_not_found', 'invalid_json', 'payload_too_large', 'insufficient_credits', 'conversation_not_ready', 'rate_limited', 'temporal_unavailable'],
    },
    async (ctx, { params }) => {
      const hook = await deps.runs.find(params.token);
      await deps.limits.webhook(hook.id);
      const key = idempotencyKey(ctx);
      const payload = await readPayload(ctx, deps.bodyLimitBytes);
      return deps.runs.accept(hook, payload, key);
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/webhooks', operationId: 'listWebhooks', tag: 'Webhooks', role: 'viewer',
      summary: "The agent's webhooks: the inbound URL of each `webhook` trigger of its latest version",
      params: agentIdParam,
      response: { status: 200, description: 'The webhooks, by trigger index', schema: listSchema(webhookSchema, { id: 'WebhookList' }) },
      errors: ['agent_not_found'],
    },
    async (ctx, { params }) => listOf(await deps.webhooks.list(workspaceOf(ctx), params.agentId, deps.publicBaseURL ?? `${ctx.protocol}://${ctx.host}`)),
  );
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/webhooks/:webhookId/rotate-url', operationId: 'rotateWebhookUrl', tag: 'Webhooks', role: 'builder',
      summary: 'A new inbound URL for the webhook; the old one answers 404 from now on',
      params: webhookParams,
      response: { status: 200, description: 'The webhook with its new URL', schema: webhookSchema },
      errors: ['webhook_not_found'],
    },
    (ctx, { params }) =>
      deps.webhooks.rotateUrl(workspaceOf(ctx), params.agentId, params.webhookId, deps.publicBaseURL ?? `${ctx.protocol}://${ctx.host}`),
  );
  r.add(
    {
      method: 'post', path: '/v1/agents/:agentId/webhooks/:webhookId/signing-secret', operationId: 'mintWebhookSigningSecret', tag: 'Webhooks', role: 'builder',
      summary: 'Mints the signing secret of outbound deliveries (shown this once), replacing any before it',
      params: webhookParams,
      response: { status: 200, description: 'The new secret', schema: signingSecretSchema },
      errors: ['webhook_not_found'],
    },
    (ctx, { params }) => deps.webhooks.mintSigningSecret(workspaceOf(ctx), params.agentId, params.webhookId),
  );
}
