import { z } from 'zod';
import { randomToken } from './ids';

/**
 * Verified visitor identity (our addition): the customer's backend signs who a visitor is with the
 * agent's identity secret, an HS256 JWT the visitor's browser passes along. Per agent, not
 * versioned: `publicIdentity` takes effect at once.
 */

/**
 * `anonymous` (default): visitors are who they say, a routing hint that grants nothing (the spec's
 * behaviour); tokens are refused. `verified`: only signed visitors may chat. `either`: both,
 * and only signed visitors act as their end user.
 */
const publicIdentityModes = ['anonymous', 'verified', 'either'] as const;
export type PublicIdentityMode = (typeof publicIdentityModes)[number];

export const visitorIdentitySchema = z
  .object({
    agentId: z.string(),
    mode: z.enum(publicIdentityModes),
    secretCreatedAt: z.string().nullable(),
    previousSecretValidUntil: z.string().nullable(),
  })
  .strict()
  .meta({
    id: 'VisitorIdentity',
    description:
      "An agent's visitor identity: `mode` (`anonymous`, `verified`, `either`), when its identity secret was created (null: none yet), and until when the secret it replaced still verifies (null: it no longer does).",
  });
export type VisitorIdentity = z.infer<typeof visitorIdentitySchema>;

export const setVisitorIdentitySchema = z.object({ mode: z.enum(publicIdentityModes) }).strict().meta({ id: 'SetVisitorIdentity' });

/** A day: time to put the new secret in the customer's backend while tokens signed with the old one still pass. */
export const DEFAULT_GRACE_SECONDS = 86_400;
const MAX_GRACE_SECONDS = 30 * 86_400;

export const rotateVisitorSecretSchema = z
  .object({ graceSeconds: z.number().int().min(0).max(MAX_GRACE_SECONDS).optional() })
  .strict()
  .meta({ id: 'RotateVisitorSecret', description: `How long the secret being replaced still verifies (default ${DEFAULT_GRACE_SECONDS} s; 0: not at all).` });

export const visitorSecretSchema = visitorIdentitySchema
  .extend({ secret: z.string().startsWith('agt_vs_') })
  .strict()
  .meta({ id: 'VisitorSecret', description: 'The new identity secret, shown this once: the HS256 key your backend signs visitor tokens with.' });
export type VisitorSecret = z.infer<typeof visitorSecretSchema>;

/** A new identity secret: `agt_vs_` + 43 base36 characters (~222 bits); used as the HMAC key's UTF-8 bytes. */
export const mintVisitorSecret = (): string => `agt_vs_${randomToken(43)}`;

/** What a secret is sealed to: one copied to another agent's row does not open. Current and previous share it. */
export const visitorSecretContext = (agentId: string) => `visitor identity secret of agent ${agentId}`;
