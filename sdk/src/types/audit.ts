import type { WorkspaceRole } from './workspace.js';

/**
 * The audit log (`ws.audit`, owners only). The server's schema is in `domain/audit.ts`.
 */

/** Who acted: an API key, a signed-in member, someone not yet known (a sign-in attempt) or the service itself. */
export interface AuditActor {
  kind: 'key' | 'member' | 'anonymous' | 'system';
  /** `key_…` or `mem_…`; null for `anonymous` and `system`. */
  id: string | null;
  /** The role the key or member had when it acted. */
  role: WorkspaceRole | null;
  /** A member's e-mail, or the one a sign-in attempt named. */
  email: string | null;
}

/** One row of the audit log: who did what to which ids, when, from where, and how it ended. */
export interface AuditEvent {
  /** `aud_…`. */
  id: string;
  /** When it happened (ISO 8601, UTC). */
  at: string;
  actor: AuditActor;
  /** The API operation (`updateAgent`, `deployToProd`…), or a named event (`signIn`, `signInFailed`, `endUserErased`…). */
  action: string;
  /**
   * Ids the action was about: the call's path ids (`agentId`…), others it names (`versionId`,
   * `keyId`…), and `id`, what a create made. An end user appears only as `endUserDigest`, the
   * SHA-256 (hex) of your id for them.
   */
  targets: Record<string, string>;
  /** The agent's version (for a deploy or rollback, its production version) before the change; null where none applies. */
  versionBefore: number | null;
  /** The same after the change. */
  versionAfter: number | null;
  /** `ok`, or the error code the call ended with (`forbidden`, `agent_not_found`…). */
  outcome: string;
  /** The HTTP status answered. */
  status: number | null;
  /** The client's address. */
  ip: string | null;
  userAgent: string | null;
  /** The `X-Request-Id` of the call. */
  requestId: string | null;
  /** Names and counts, never values: a secret write's `names`, a deploy's `evalGate: 'skipped'`, an erasure's counts. */
  detail: Record<string, unknown>;
}

/** One page of `ws.audit.list`: rows newest first, and the cursor of the next page (null on the last). */
export interface AuditPage {
  data: AuditEvent[];
  nextCursor: string | null;
}
