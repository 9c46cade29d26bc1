import { z } from 'zod';

/** `PUT /v1/agents/:agentId/credit-cap` (our addition): the most credits the agent's turns may spend; null removes the cap. */
export const setCreditCapSchema = z
  .object({ credits: z.number().finite().min(0).max(1e12).nullable() })
  .strict()
  .meta({ id: 'SetCreditCap' });

/** An agent's cap and what counts against it (its finished turns' cost plus its running turns' reservations). */
export const creditCapSchema = z
  .object({ agentId: z.string(), credits: z.number().nullable(), spent: z.number() })
  .meta({ id: 'CreditCap', description: '`credits` null: no cap. A turn that would take `spent` past `credits` is refused with 409 `insufficient_credits`.' });
export type CreditCap = z.infer<typeof creditCapSchema>;
