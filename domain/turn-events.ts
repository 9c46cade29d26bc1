import { z } from 'zod';

export const stepSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    kind: z.enum(['read', 'write', 'edit', 'search', 'shell', 'web', 'data', 'task', 'plan', 'other']),
    status: z.enum(['active', 'done', 'error']),
  })
  .strict()
  .meta({ id: 'Step' });
export type Step = z.infer<typeof stepSchema>;

/**
 * Why a turn stopped, on its `error` event (our addition), when a client may act on it: the
 * workspace ran out of credits, or the agent reached its credit cap, before a model step.
 */
const turnErrorCodeSchema = z.enum(['credits_exhausted', 'credit_cap_reached']);
export type TurnErrorCode = z.infer<typeof turnErrorCodeSchema>;

/**
 * The TurnEvent types a turn streams (docs/http-api.md: SSE wire format). `text.reset` (our addition,
 * never set on the first attempt of a model call) tells a consumer to drop the text received
 * since the last `tool` event or the turn's start: a retried model call produced a different
 * reply than it had streamed.
 */
export const turnEventSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('start'), turnId: z.string() }).strict(),
    z.object({ type: z.literal('progress'), steps: z.array(stepSchema) }).strict(),
    z.object({ type: z.literal('tool'), name: z.string(), state: z.enum(['start', 'end']), ok: z.boolean().optional() }).strict(),
    z.object({ type: z.literal('text'), text: z.string(), reset: z.literal(true).optional() }).strict(),
    z.object({ type: z.literal('file'), path: z.string() }).strict(),
    z.object({ type: z.literal('done'), reply: z.string() }).strict(),
    z.object({ type: z.literal('error'), message: z.string(), retryable: z.boolean(), code: turnErrorCodeSchema.optional() }).strict(),
  ])
  .meta({ id: 'TurnEvent' });
export type TurnEvent = z.infer<typeof turnEventSchema>;

export const isTerminal = (e: Pick<TurnEvent, 'type'>) => e.type === 'done' || e.type === 'error';
