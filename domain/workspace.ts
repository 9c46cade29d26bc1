import { z } from 'zod';
import { roleSchema } from './roles';

/** Workspace as the API names it (docs/http-api.md). `credits` may be fractional (debits are usage × rate). */
export const workspaceSchema = z.object({
  id: z.string().startsWith('ws_'),
  name: z.string(),
  credits: z.number(),
  createdAt: z.string(),
  /** E-mail domains whose verified addresses may join by OIDC as viewers (docs/security.md, "Sign-in with an identity provider (OIDC)"). */
  signInDomains: z.array(z.string()),
});
export type Workspace = z.infer<typeof workspaceSchema>;

/** A lower-case domain name of at least two labels (`example.com`): what an e-mail's part after `@` is compared with, exactly. */
const signInDomainSchema = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/, 'a lower-case domain name such as example.com');

/** `PATCH /v1/workspace` (owners): the settings a workspace's owners change. */
export const updateWorkspaceBodySchema = z
  .object({
    signInDomains: z
      .array(signInDomainSchema)
      .max(20, 'at most 20 domains')
      .refine((list) => new Set(list).size === list.length, 'each domain once')
      .optional(),
  })
  .strict();

/** An API key's public record; the secret itself is shown once at creation and stored only as a hash. */
export const apiKeySchema = z.object({
  id: z.string().startsWith('key_'),
  workspaceId: z.string(),
  prefix: z.string(),
  /** What the key may do (docs/security.md, "Roles"); keys made before roles existed are `owner`. */
  role: roleSchema,
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiKeyRecord = z.infer<typeof apiKeySchema>;

/** `POST /v1/keys`: a new key's name and role. */
export const createKeyBodySchema = z
  .object({
    name: z.string().trim().min(1, 'a name, so the key can be told apart later').max(100),
    role: roleSchema,
  })
  .strict();

/** The answer to `POST /v1/keys`: the record and the key itself, shown this once. */
export const createdKeySchema = z.object({ key: apiKeySchema, apiKey: z.string().startsWith('sk_') });
