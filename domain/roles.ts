import { z } from 'zod';

/**
 * A member's or key's role in its workspace. Each is a strict superset of the next
 * (docs/security.md, "Roles"): `owner` ⊃ `builder` ⊃ `reviewer` ⊃ `viewer`.
 */
export const roles = ['owner', 'builder', 'reviewer', 'viewer'] as const;
export type Role = (typeof roles)[number];
export const roleSchema = z.enum(roles);

const rank: Record<Role, number> = { viewer: 0, reviewer: 1, builder: 2, owner: 3 };

/** Whether a caller of role `have` may do what needs `need`. */
export function roleAllows(have: Role, need: Role): boolean {
  return rank[have] >= rank[need];
}

/**
 * Who is calling an authenticated route: an API key or a signed-in member (a session), with the
 * role that applies. The one thing routes, the role check and the audit log read about the caller.
 */
export interface Actor {
  kind: 'key' | 'member';
  /** `key_…` or `mem_…`. */
  id: string;
  role: Role;
  workspaceId: string;
  /** The session's id, for a member signed in by cookie. */
  sessionId?: string;
}
