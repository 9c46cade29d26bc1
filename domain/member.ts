import { z } from 'zod';
import { roleSchema } from './roles';
import { workspaceSchema } from './workspace';

/** A member of a workspace as the API names it (docs/http-api.md, Members): an account's role there. */
export const memberSchema = z
  .object({
    id: z.string().startsWith('mem_'),
    email: z.string(),
    name: z.string(),
    role: roleSchema,
    createdAt: z.string(),
    /** The last time one of their sessions was used (moved on at most once a minute); null before the first sign-in. */
    lastSeenAt: z.string().nullable(),
  })
  .meta({ id: 'WorkspaceMember' });
export type Member = z.infer<typeof memberSchema>;

/** A pending invite: the link itself is shown once, to the inviter, and stored only hashed. */
export const inviteSchema = z
  .object({
    id: z.string().startsWith('lnk_'),
    email: z.string(),
    role: roleSchema,
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'MemberInvite' });
export type Invite = z.infer<typeof inviteSchema>;

/** The kinds of one-time link (migration 030, `member_links.kind`). */
export type LinkKind = 'invite' | 'sign_in' | 'reset';

/** E-mail addresses are compared and stored lower-cased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** An e-mail address at the edge: trimmed, lower-cased, at most 254 characters, one `@` with text either side. */
export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+$/, 'an e-mail address (name@host)')
  .transform(normalizeEmail);

/** `POST /v1/auth/password`. */
export const passwordSignInBodySchema = z
  .object({
    email: emailSchema,
    password: z.string().min(1, 'required').max(256, 'at most 256 characters'),
    workspaceId: z.string().startsWith('ws_').max(100).optional().describe('The workspace to sign in to; default: the one the member was last seen in.'),
  })
  .strict();

/** What every sign-in answers (the `ha_session` cookie is set beside it). */
export const signedInSchema = z
  .object({
    member: memberSchema,
    workspace: workspaceSchema,
    csrfToken: z.string().describe('Send it as `X-CSRF-Token` on every change made with the session cookie.'),
    expiresAt: z.string().describe("The session's absolute expiry (it ends sooner after SESSION_IDLE_HOURS unused)."),
  })
  .meta({ id: 'SignedIn' });

/** `GET /v1/session`: who is calling — a signed-in member, or an API key. */
export const sessionInfoSchema = z
  .object({
    actor: z.object({ kind: z.enum(['key', 'member']), id: z.string(), role: roleSchema }).strict(),
    workspace: workspaceSchema,
    /** Null for an API key. */
    member: memberSchema.nullable(),
    /** Null for an API key. */
    csrfToken: z.string().nullable(),
    /** The session's absolute expiry; null for an API key. */
    expiresAt: z.string().nullable(),
  })
  .meta({ id: 'SessionInfo' });

/** `POST /v1/members`. */
export const inviteBodySchema = z
  .object({
    email: emailSchema,
    role: roleSchema,
    name: z.string().trim().max(200, 'at most 200 characters').optional(),
  })
  .strict();

/** What an invite answers: the link, shown once to the inviter. */
export const createdInviteSchema = z
  .object({
    invite: inviteSchema,
    url: z.string().describe('The one-time invite link: shown here once (copy it to the invitee), stored only hashed.'),
    mailed: z.boolean().describe('Whether it was also mailed to the invitee (the server has SMTP_URL).'),
  })
  .meta({ id: 'CreatedInvite' });

/** `PATCH /v1/members/:memberId`. */
export const updateMemberBodySchema = z.object({ role: roleSchema }).strict();

/** `POST /v1/members/:memberId/reset-link`. */
export const resetLinkSchema = z
  .object({
    url: z.string().describe('A one-time password reset link for the member: shown here once.'),
    expiresAt: z.string(),
  })
  .meta({ id: 'ResetLink' });

/** `POST /v1/auth/password/reset`. */
export const passwordResetRequestBodySchema = z.object({ email: emailSchema }).strict();

/** `PUT /v1/session/password`. */
export const changePasswordBodySchema = z
  .object({
    currentPassword: z.string().max(256, 'at most 256 characters').optional().describe('Required when the account has a password (not for a first one, set after a sign-in link or OIDC).'),
    newPassword: z.string().min(12, 'at least 12 characters').max(256, 'at most 256 characters'),
  })
  .strict();

/** What using a one-time link by JSON takes (the link's form sends the same fields). */
export const useLinkBodySchema = z
  .object({
    name: z.string().trim().max(200, 'at most 200 characters').optional(),
    password: z.string().max(256, 'at most 256 characters').optional(),
    email: z.string().max(254).optional().describe('The e-mail the client expects the link to be for: another is refused (403 email_mismatch).'),
  })
  .strict();
