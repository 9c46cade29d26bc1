import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type Role, roleSchema } from './roles';

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

/**
 * How an end user's id appears in the audit log: the SHA-256 (hex) of the id, as the target
 * `endUserDigest`. Their id itself is stored nowhere in it, so erasing an end user (issue 50,
 * item 7) leaves no copy of their id behind; whoever knows the id can still find the rows.
 */
export function endUserDigest(endUserId: string): string {
  return createHash('sha256').update(endUserId, 'utf8').digest('hex');
}

/** One audit row as `GET /v1/audit` answers it (and the export writes, one per line). */
export const auditEventSchema = z
  .object({
    id: z.string().describe('`aud_…`.'),
    at: z.string().describe('When it happened (ISO 8601, UTC).'),
    actor: z
      .object({
        kind: z.enum(['key', 'member', 'anonymous', 'system']),
        id: z.string().nullable().describe('`key_…` or `mem_…`; null for `anonymous` and `system`.'),
        role: roleSchema.nullable().describe('The role the key or member had when it acted.'),
        email: z.string().nullable().describe("A member's e-mail, or the one a sign-in attempt named."),
      })
      .strict(),
    action: z.string().describe('The operationId of the call (`updateAgent`), or a named event (`signIn`, `signInFailed`, `endUserErased`…).'),
    targets: z.record(z.string(), z.string()).describe('Ids the action was about (`agentId`, `memberId`…); an end user only as `endUserDigest`, the SHA-256 of their id.'),
    versionBefore: z.number().int().nullable().describe("The agent's version (or its production version, for a deploy or rollback) before the change."),
    versionAfter: z.number().int().nullable().describe('The same after it.'),
    outcome: z.string().describe('`ok`, or the error code the call ended with (`forbidden`, `agent_not_found`…).'),
    status: z.number().int().nullable().describe('The HTTP status answered.'),
    ip: z.string().nullable().describe("The client's address."),
    userAgent: z.string().nullable(),
    requestId: z.string().nullable().describe('The `X-Request-Id` of the call.'),
    detail: z.record(z.string(), z.unknown()).describe("Counts and names, never content or secret values: a secret write's `names`, a deploy's `evalGate: 'skipped'`, an erasure's counts."),
  })
  .strict()
  .meta({ id: 'AuditEvent', description: 'One row of the audit log: who did what to which ids, when, from where, and how it ended.' });
export type AuditEvent = z.infer<typeof auditEventSchema>;

/** The most rows one page of `GET /v1/audit` answers. */
export const AUDIT_PAGE_MAX = 200;

const isoTime = (what: string) =>
  z.iso.datetime({ offset: true, error: 'an ISO 8601 date-time such as 2026-01-01T00:00:00Z' }).optional().describe(what);

/** `GET /v1/audit` and `GET /v1/audit/export`: filters, and for the list a page. */
export const auditFiltersSchema = z
  .object({
    actor: z.string().min(1).max(100).optional().describe('Only rows of this key (`key_…`) or member (`mem_…`).'),
    action: z.string().min(1).max(100).optional().describe('Only rows of this action (an operationId such as `updateAgent`, or an event such as `signIn`).'),
    target: z.string().min(1).max(500).optional().describe('Only rows with this id among their targets (any of them: an agent, a version, a member…).'),
    since: isoTime('Only rows at or after this time.'),
    until: isoTime('Only rows before this time.'),
  })
  .strict();
export type AuditFilters = z.infer<typeof auditFiltersSchema>;

export const listAuditQuerySchema = auditFiltersSchema
  .extend({
    cursor: z.string().regex(/^[1-9][0-9]{0,17}$/, 'the nextCursor of an earlier page').optional().describe('The `nextCursor` of the page before.'),
    limit: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').max(AUDIT_PAGE_MAX, `at most ${AUDIT_PAGE_MAX}`).default(50).describe(`Rows per page, 1–${AUDIT_PAGE_MAX} (default 50).`),
  })
  .strict();

/**
 * What a service notes for the audit row of the call it serves (the API's `ctx.state.audit`):
 * versions before and after, target ids not in the path, and `detail` (names and counts, never
 * values). Filled as facts become known, so a call that fails half-way still names its targets.
 */
export interface AuditNote {
  versionBefore?: number;
  versionAfter?: number;
  targets?: Record<string, string>;
  detail?: Record<string, unknown>;
}
