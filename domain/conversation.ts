import { z } from 'zod';
import type { Parameter } from './agent';
import { endUserSchema } from './publishing';

export const requirementSchema = z
  .object({ kind: z.enum(['secret', 'connection']), name: z.string(), required: z.boolean() })
  .strict()
  .meta({ id: 'Requirement' });
export type Requirement = z.infer<typeof requirementSchema>;

export const agentConversationSchema = z
  .object({
    id: z.string().startsWith('cnv_'),
    agentId: z.string(),
    version: z.number().int(),
    startedAt: z.string(),
    title: z.string().optional(),
    ready: z.boolean(),
    requires: z.array(requirementSchema),
    endedAt: z.string().optional(),
    channel: z.enum(['public', 'test']).optional(),
    endUser: z.object({ id: z.string(), name: z.string().optional(), email: z.string().optional(), verified: z.boolean() }).strict().optional(),
    trigger: z.object({ kind: z.enum(['schedule', 'interval', 'webhook']), index: z.number().int() }).strict().optional(),
  })
  .strict()
  .meta({
    id: 'AgentConversation',
    description:
      '`requires` lists what is still missing; `endedAt` is set once ended. Conversations of visitors carry `channel` (`public`: public chat and the embed; `test`: a test URL) and their `endUser`. `endUser.verified` is true when the conversation acts as that end user (their stored values serve it): started by the API, or a visitor who proved the id with a signed token; false for a self-attested visitor id. A conversation started by a schedule, interval or webhook trigger carries `trigger` (its kind and index in the agent\'s `triggers`).',
  });
export type AgentConversation = z.infer<typeof agentConversationSchema>;

export const messageSchema = z
  .object({ role: z.enum(['user', 'assistant']), content: z.string(), at: z.string() })
  .strict()
  .meta({ id: 'Message' });
export type Message = z.infer<typeof messageSchema>;

export const parameterValue = z.union([z.string().max(10_000), z.number().finite()]);

export const startConversationSchema = z
  .object({
    version: z.number().int().min(1).optional(),
    parameters: z.record(z.string(), parameterValue).optional(),
    /** The end user the conversation is for: it is listed by `endUser.conversations()` and sees that end user's values. */
    endUser: endUserSchema.optional(),
  })
  .strict()
  .meta({ id: 'StartConversation' });

/** Attachments: at most 10, each at most 5 MiB once decoded; images up to the same size. */
const MAX_ATTACHMENTS = 10;
const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const attachmentSchema = z
  .object({
    kind: z.enum(['image', 'file']),
    name: z.string().min(1).max(200).optional(),
    mimeType: z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/i, 'a content type such as image/png'),
    data: z
      .string()
      .max(Math.ceil((MAX_ATTACHMENT_BYTES * 4) / 3) + 4, `at most ${MAX_ATTACHMENT_BYTES} bytes once decoded`)
      .regex(base64, 'base64 (standard alphabet, no data: prefix)'),
  })
  .strict()
  .superRefine((a, ctx) => {
    if (a.kind === 'image' && !(IMAGE_TYPES as readonly string[]).includes(a.mimeType.toLowerCase()))
      ctx.addIssue({ code: 'custom', path: ['mimeType'], message: `images are ${IMAGE_TYPES.join(', ')}` });
  })
  .meta({ id: 'Attachment', description: '`data` is the content in standard base64.' });

export const askSchema = z
  .object({
    text: z.string().max(100_000),
    attachments: z.array(attachmentSchema).max(MAX_ATTACHMENTS).optional(),
  })
  .strict()
  .refine((b) => b.text.trim() !== '' || (b.attachments?.length ?? 0) > 0, { path: ['text'], message: 'empty: send text or attachments' })
  .meta({ id: 'Ask' });
export type AskInput = z.infer<typeof askSchema>;

/**
 * Checks the values given at start against the version's declared parameters and fills defaults.
 * Returns the values (all as strings, as the model sees them) or the first problem, naming it.
 */
export function resolveParameters(
  declared: Parameter[],
  given: Record<string, string | number>,
): { ok: true; values: Record<string, string> } | { ok: false; name: string; problem: string } {
  const byName = new Map(declared.map((p) => [p.name, p]));
  for (const name of Object.keys(given)) {
    if (!byName.has(name)) return { ok: false, name, problem: 'is not a declared parameter' };
  }
  const values: Record<string, string> = {};
  for (const p of declared) {
    const raw = given[p.name];
    if (raw === undefined) {
      if (p.default !== undefined) values[p.name] = p.default;
      else if (p.required) return { ok: false, name: p.name, problem: 'is required' };
      continue;
    }
    const text = String(raw);
    if (p.type === 'number' && (text.trim() === '' || !Number.isFinite(Number(text)))) return { ok: false, name: p.name, problem: 'must be a number' };
    if (p.type === 'date' && !(/^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text))))
      return { ok: false, name: p.name, problem: 'must be a date (YYYY-MM-DD)' };
    if (p.type === 'choice' && !(p.choices ?? []).includes(text))
      return { ok: false, name: p.name, problem: `must be one of ${(p.choices ?? []).join(', ')}` };
    values[p.name] = text;
  }
  return { ok: true, values };
}

/** A conversation's title: its first message, on one line, at most 80 characters. */
export function titleFrom(text: string): string | undefined {
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** How a turn stands, as `POST /v1/turns/:turnId/cancel` answers (our addition: the spec has no cancel). */
export const turnStateSchema = z
  .object({
    turnId: z.string(),
    status: z.enum(['running', 'done', 'error', 'cancelled']),
  })
  .meta({
    id: 'TurnState',
    description: '`cancelled`: the cancel stopped it. `done`/`error`: it had already ended (a cancel changes nothing). `running`: no worker has acted on the cancel yet; it will.',
  });
export type TurnState = z.infer<typeof turnStateSchema>;
