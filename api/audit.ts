import { type AuditEntry, endUserDigest } from '../domain/audit';
import { credentialsBodySchema } from '../domain/credentials';
import type { ApiContext, ApiDeps } from './context';
import type { AnyRouteDef, RouteOutcome } from './routing';

/** Routes whose body carries secret values: their row keeps the names only (never a body otherwise). */
const SECRET_WRITES = new Set(['putAgentCredentials', 'putConversationCredentials', 'putEndUserCredentials']);
/** What a target id is cut to: a path parameter is at most a file path. */
const MAX_TARGET = 500;

/**
 * Writes one audit row per call of an audited route (issue 50, item 6; docs/security.md, "Audit
 * log"), once it is answered, refused or failed: who (the key or member, with its role), the
 * operationId, the ids it was about, the versions before and after where the handler set them
 * (`ctx.state.audit`), the outcome and where it came from.
 *
 * A row that cannot be written is logged at error level with the request id, and the call's
 * answer stands: failing a change that was made (or refusing one for the log's sake) would tell
 * the caller something untrue about their change.
 */
export function auditRecorder(deps: Pick<ApiDeps, 'repos' | 'logger'>): (ctx: ApiContext, def: AnyRouteDef, outcome: RouteOutcome) => Promise<void> {
  return async (ctx, def, outcome) => {
    const actor = ctx.state.actor;
    // A call over a limit (429) changed nothing and is counted by the refusal metrics; a row each
    // would make a flood of refusals cost an INSERT apiece.
    if (!actor || outcome.status === 429) return;
    const extra = ctx.state.audit;
    const entry: AuditEntry = {
      workspaceId: actor.workspaceId,
      actor: { kind: actor.kind, id: actor.id, role: actor.role },
      action: def.operationId,
      targets: { ...withAnsweredId(pathTargets(ctx.params), ctx, outcome), ...extra?.targets },
      versionBefore: extra?.versionBefore,
      versionAfter: extra?.versionAfter,
      outcome: outcome.error ?? 'ok',
      status: outcome.status,
      ip: ctx.ip,
      userAgent: ctx.get('user-agent') || undefined,
      requestId: ctx.state.requestId,
      detail: { ...(SECRET_WRITES.has(def.operationId) ? secretNames(ctx.request.body) : {}), ...extra?.detail },
    };
    try {
      await deps.repos.audit.append(entry);
    } catch (err) {
      deps.logger.error({ err, requestId: ctx.state.requestId, action: entry.action }, 'an audit row could not be written; the call was answered as it ended');
    }
  };
}

/**
 * The route's path parameters as targets. An end user's id is kept only as its SHA-256
 * (`endUserDigest`): erasing an end user must leave their id nowhere, this log included.
 */
function pathTargets(params: Record<string, string> | undefined): Record<string, string> {
  const targets: Record<string, string> = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    if (typeof value !== 'string') continue;
    if (name === 'endUserId') targets.endUserDigest = endUserDigest(value);
    else targets[name] = value.slice(0, MAX_TARGET);
  }
  return targets;
}

/**
 * The targets, with the id of the record a successful call answered with as `id` when it is not
 * among them already (what a create made: the new agent, project, conversation…).
 */
function withAnsweredId(targets: Record<string, string>, ctx: ApiContext, outcome: RouteOutcome): Record<string, string> {
  if (outcome.error !== undefined || outcome.status >= 300) return targets;
  const body: unknown = ctx.body;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('id' in body)) return targets;
  const { id } = body;
  if (typeof id !== 'string' || id.length > 100 || Object.values(targets).includes(id)) return targets;
  return { ...targets, id };
}

/** A credentials body's secret names and connection providers; nothing when it does not parse. */
function secretNames(body: unknown): Record<string, string[]> {
  const parsed = credentialsBodySchema.safeParse(body);
  if (!parsed.success) return {};
  return {
    names: Object.keys(parsed.data.secrets ?? {}),
    connections: (parsed.data.connections ?? []).map((c) => c.provider),
  };
}
