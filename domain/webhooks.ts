import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { randomToken } from './ids';
import type { SecretBox } from './secret-box';
import type { Trigger } from './trigger';

/**
 * Webhook triggers (docs/http-api.md: Webhooks): the inbound URL's token, the outbound signing secret, the
 * identity of a webhook across publishes, and the prompt a payload becomes.
 */

type WebhookTrigger = Extract<Trigger, { kind: 'webhook' }>;

/** The token is the whole credential of an inbound URL: 32 base36 characters, ~165 bits. */
const TOKEN_PREFIX = 'wh_';
export const webhookTokenPattern = /^wh_[0-9a-z]{32}$/;

export const webhookSchema = z
  .object({
    id: z.string().startsWith('whk_'),
    triggerIndex: z.number().int().min(0),
    url: z.string(),
    signingSecret: z.boolean(),
    createdAt: z.string(),
  })
  .strict()
  .meta({
    id: 'Webhook',
    description:
      'The inbound URL of a `webhook` trigger (read-only; rotate it with POST …/webhooks/{webhookId}/rotate-url). `triggerIndex` is the trigger it serves in `triggers`; `signingSecret` says whether outbound deliveries can be signed (a secret was minted).',
  });
export type Webhook = z.infer<typeof webhookSchema>;

export const signingSecretSchema = z
  .object({ secret: z.string().startsWith('whsec_') })
  .strict()
  .meta({ id: 'WebhookSigningSecret', description: 'The new signing secret, shown this once; the previous one no longer signs.' });

export const webhookAcceptedSchema = z
  .object({ turnId: z.string(), conversationId: z.string() })
  .strict()
  .meta({ id: 'WebhookAccepted', description: 'The run the request started (or, for a repeated idempotency key, the run it started before).' });

/** Lookups go by SHA-256: the token is long and random, so a slow KDF buys nothing. */
export const hashWebhookToken = (token: string) => createHash('sha256').update(token).digest('hex');

const tokenContext = (webhookId: string) => `webhook token of ${webhookId}`;
const secretContext = (webhookId: string) => `webhook signing secret of ${webhookId}`;
/** What a webhook's sealed token and signing secret are bound to (read by `secrets rekey`). */
export const webhookSealContexts = { token: tokenContext, signingSecret: secretContext } as const;

/** A new inbound token, with its lookup hash and its value sealed under SECRETS_KEY (to show the URL again). */
export function mintWebhookToken(box: SecretBox, webhookId: string): { hash: string; sealed: Buffer } {
  const token = `${TOKEN_PREFIX}${randomToken(32)}`;
  return { hash: hashWebhookToken(token), sealed: box.seal(token, tokenContext(webhookId)) };
}

export const openWebhookToken = (box: SecretBox, webhookId: string, sealed: Buffer) => box.open(sealed, tokenContext(webhookId));

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function mintSigningSecret(box: SecretBox, webhookId: string): { secret: string; sealed: Buffer } {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  return { secret, sealed: box.seal(secret, secretContext(webhookId)) };
}

export const openSigningSecret = (box: SecretBox, webhookId: string, sealed: Buffer) => box.open(sealed, secretContext(webhookId));

/** The inbound URL of a token. */
export const webhookURL = (baseURL: string, token: string) => `${baseURL}/v1/hooks/${token}`;

/** A stored webhook and the trigger it served in the version being replaced (undefined: none there). */
interface Standing {
  id: string;
  trigger: WebhookTrigger | undefined;
}

/** What a publish does to the agent's webhooks: which keep their URL (at their new index), which are new, which go. */
export interface WebhookPlan {
  keep: Array<{ id: string; index: number }>;
  create: number[];
  remove: string[];
}

const sameTrigger = (a: WebhookTrigger, b: WebhookTrigger) => (a.message ?? null) === (b.message ?? null) && (a.url ?? null) === (b.url ?? null);

/**
 * Which webhook each `webhook` trigger of the new version is. Triggers have no id of their own, so:
 * first, a trigger identical to one before (same `message` and `url`) keeps that one's URL wherever
 * it moved; then the rest are paired in order (so editing a trigger in place keeps its URL).
 * Webhooks left over are removed (their URLs stop); triggers left over get new ones.
 */
export function planWebhooks(standing: Standing[], next: Trigger[]): WebhookPlan {
  const wanted = next.flatMap((t, index) => (t.kind === 'webhook' ? [{ trigger: t, index }] : []));
  const free = [...standing];
  const keep: WebhookPlan['keep'] = [];
  const unmatched: typeof wanted = [];
  for (const w of wanted) {
    const at = free.findIndex((s) => s.trigger !== undefined && sameTrigger(s.trigger, w.trigger));
    if (at === -1) unmatched.push(w);
    else keep.push({ id: free.splice(at, 1)[0]!.id, index: w.index });
  }
  const create: number[] = [];
  for (const w of unmatched) {
    const next = free.shift();
    if (next) keep.push({ id: next.id, index: w.index });
    else create.push(w.index);
  }
  return { keep: keep.sort((a, b) => a.index - b.index), create, remove: free.map((s) => s.id) };
}

/** What the agent is asked: the trigger's `message` (or a default), then the payload as indented JSON. */
export function webhookPrompt(message: string | undefined, payload: unknown): string {
  return `${message ?? 'A webhook request arrived.'}\n\nWebhook payload (JSON):\n${JSON.stringify(payload, null, 2)}`;
}
