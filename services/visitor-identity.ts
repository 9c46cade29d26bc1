import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { SessionVisitor } from '../db/repositories/conversations';
import type { VisitorIdentityRow } from '../db/repositories/visitor-identities';
import { AppError } from '../domain/errors';
import type { SecretBox } from '../domain/secret-box';
import {
  DEFAULT_GRACE_SECONDS,
  mintVisitorSecret,
  type PublicIdentityMode,
  type VisitorIdentity,
  type VisitorSecret,
  visitorSecretContext,
} from '../domain/visitor-identity';
import { verifyVisitorToken } from './visitor-token';
import { iso } from '../db/rows';

/** A visitor as a request presents them: the id they give, what else they say, and a token if any. */
export interface PresentedVisitor {
  id: string;
  name?: string | undefined;
  email?: string | undefined;
  token?: string | undefined;
}

/** Who the visitor is for their session: verified (with the token's name and email) or anonymous. */
export type SessionIdentity = SessionVisitor & { name?: string | undefined; email?: string | undefined };

/**
 * Per-agent visitor identity: the `publicIdentity` mode and the identity secret (created and
 * rotated here, shown once, sealed at rest), and the check every public request makes of its visitor.
 */
export class VisitorIdentityService {
  constructor(private readonly deps: { db: Db; repos: Repositories; box: SecretBox }) {}

  async get(workspaceId: string, agentId: string): Promise<VisitorIdentity> {
    await this.agent(workspaceId, agentId);
    return view(agentId, await this.deps.repos.visitorIdentities.get({ agentId }));
  }

  /** `verified` and `either` need a secret first: without one no visitor could ever be verified. */
  async setMode(workspaceId: string, agentId: string, mode: PublicIdentityMode): Promise<VisitorIdentity> {
    await this.agent(workspaceId, agentId);
    if (mode !== 'anonymous' && !(await this.deps.repos.visitorIdentities.get({ agentId }))?.secret_sealed) {
      throw new AppError('invalid_request', `body.mode: ${mode} needs an identity secret; create one first (POST /v1/agents/${agentId}/visitor-identity/secret)`);
    }
    await this.deps.repos.visitorIdentities.setMode({ workspaceId, agentId, mode });
    return this.get(workspaceId, agentId);
  }

  /** A new secret, returned this once; the one it replaces still verifies for `graceSeconds` (0: it stops now). */
  async rotateSecret(workspaceId: string, agentId: string, graceSeconds = DEFAULT_GRACE_SECONDS): Promise<VisitorSecret> {
    await this.agent(workspaceId, agentId);
    const { box, repos } = this.deps;
    const secret = mintVisitorSecret();
    const row = await this.deps.db.transaction(async (trx) => {
      const current = await repos.visitorIdentities.lock({ workspaceId, agentId }, trx);
      const previous = current.secret_sealed && graceSeconds > 0 ? { sealed: current.secret_sealed, validUntil: new Date(Date.now() + graceSeconds * 1000) } : null;
      return repos.visitorIdentities.rotate({ agentId, sealed: box.seal(secret, visitorSecretContext(agentId)), previous }, trx);
    });
    return { ...view(agentId, row), secret };
  }

  /**
   * The visitor of a public request of `agentId`, checked against the agent's mode: a valid token
   * makes them verified (its `sub` must be the id they give; its name and email replace theirs),
   * none leaves them anonymous where the mode allows it. `field` names where the token came from.
   * Refusals: 401 `invalid_visitor_token`, 401 `visitor_token_required`, 400 for a token the mode does not take.
   */
  async resolve(agentId: string, visitor: PresentedVisitor, field: string): Promise<SessionIdentity> {
    const row = await this.deps.repos.visitorIdentities.get({ agentId });
    const mode = row?.mode ?? 'anonymous';
    if (visitor.token === undefined) {
      if (mode === 'verified') {
        throw new AppError('visitor_token_required', `this agent talks only to verified visitors: send ${field}, a token your backend signs with the agent's identity secret`);
      }
      return { id: visitor.id, verified: false, name: visitor.name, email: visitor.email };
    }
    if (mode === 'anonymous' || !row) {
      throw new AppError('invalid_request', `${field}: this agent takes no visitor tokens (its publicIdentity is anonymous)`);
    }
    const checked = await verifyVisitorToken(visitor.token, this.secrets(row));
    if ('problem' in checked) throw new AppError('invalid_visitor_token', `${field}: ${checked.problem}`);
    if (checked.id !== visitor.id) throw new AppError('invalid_visitor_token', `${field}: the token's sub is not the visitor id given`);
    return { id: checked.id, verified: true, name: checked.name, email: checked.email };
  }

  /** The secrets that verify now: the current one, then the previous one while its grace lasts. */
  private secrets(row: VisitorIdentityRow): string[] {
    const context = visitorSecretContext(row.agent_id);
    const out: string[] = [];
    if (row.secret_sealed) out.push(this.deps.box.open(row.secret_sealed, context));
    if (row.previous_secret_sealed && row.previous_valid_until && row.previous_valid_until.getTime() > Date.now()) {
      out.push(this.deps.box.open(row.previous_secret_sealed, context));
    }
    return out;
  }

  private async agent(workspaceId: string, agentId: string): Promise<void> {
    if (!(await this.deps.repos.agents.find({ workspaceId, agentId }))) throw new AppError('agent_not_found', 'no such agent');
  }
}

function view(agentId: string, row: VisitorIdentityRow | undefined): VisitorIdentity {
  const graceOpen = row?.previous_secret_sealed && row.previous_valid_until && row.previous_valid_until.getTime() > Date.now();
  return {
    agentId,
    mode: row?.mode ?? 'anonymous',
    secretCreatedAt: row?.secret_created_at ? iso(row.secret_created_at) : null,
    previousSecretValidUntil: graceOpen ? iso(row.previous_valid_until!) : null,
  };
}
