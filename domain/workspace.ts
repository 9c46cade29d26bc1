import { z } from 'zod';
import { roleSchema } from './roles';

/** Workspace as the API names it (docs/http-api.md). `credits` may be fractional (debits are usage × rate). */
export const workspaceSchema = z.object({
  id: z.string().startsWith('ws_'),
  name: z.string(),
  credits: z.number(),
  createdAt: z.string(),
});
export type Workspace = z.infer<typeof workspaceSchema>;

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
