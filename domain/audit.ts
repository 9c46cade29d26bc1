import type { Role } from './roles';

/**
 * One row of the audit log (docs/security.md, "Audit log"). Rows are appended only: the database
 * refuses UPDATE and DELETE of them (migration 031) but for the retention prune.
 */
export interface AuditEntry {
  /** Null for a sign-in attempt that matched no workspace (an unknown e-mail). */
  workspaceId: string | null;
  actor: {
    /** `anonymous`: a sign-in attempt, invite acceptance or reset request before anyone is known; `system`: the service itself (an erasure's receipt). */
    kind: 'key' | 'member' | 'anonymous' | 'system';
    /** `key_…` or `mem_…`. */
    id?: string;
    role?: Role;
    /** The e-mail a sign-in attempt named, lower-cased (never a password). */
    email?: string;
  };
  /** The route's operationId for API calls (`updateAgent`), or a named event (`signIn`, `signInFailed`, `endUserErased`…). */
  action: string;
  /** Ids the action was about (`agentId`, `memberId`…); an end user's id only as its SHA-256 (`endUserDigest`). */
  targets: Record<string, string>;
  versionBefore?: number;
  versionAfter?: number;
  /** `ok`, or the error code the call ended with. */
  outcome: string;
  status?: number;
  ip?: string;
  userAgent?: string;
  requestId?: string;
  /** Counts and names, never content or secret values (an erasure's counts per kind; a secret's names). */
  detail?: Record<string, unknown>;
}
