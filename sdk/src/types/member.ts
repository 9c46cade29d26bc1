import type { WorkspaceRole } from './workspace.js';

/** A member of the workspace: a person (by e-mail) with a role there. */
export interface WorkspaceMember {
  /** Member id (`mem_…`). */
  id: string;
  /** Lower-case. */
  email: string;
  name: string;
  role: WorkspaceRole;
  createdAt: string;
  /** When one of their sessions was last used (moved at most about once a minute), or null before their first sign-in. */
  lastSeenAt: string | null;
}

/** A pending invite (not accepted, revoked or expired). Its link was shown once, to whoever invited. */
export interface MemberInvite {
  /** Invite id (`lnk_…`), for `ws.members.revokeInvite`. */
  id: string;
  email: string;
  /** The role the invitee gets on accepting. */
  role: WorkspaceRole;
  createdAt: string;
  /** After this (INVITE_TTL_HOURS, default 72 h) the link no longer works. */
  expiresAt: string;
}

/** What `ws.members.invite` takes. */
export interface InviteInput {
  email: string;
  role: WorkspaceRole;
  /** Shown to teammates until the invitee sets their own. */
  name?: string;
}

/** What `ws.members.invite` resolves to: the invite and its one-time link, shown here once. */
export interface CreatedInvite {
  invite: MemberInvite;
  /** The one-time link: give it to the invitee (it is also mailed when the server has SMTP_URL). */
  url: string;
  /** Whether the server mailed the link to the invitee. */
  mailed: boolean;
}

/** A one-time password reset link for a member (`ws.members.resetLink`), shown here once. */
export interface ResetLink {
  url: string;
  expiresAt: string;
}
