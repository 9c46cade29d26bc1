import { type Client, WorkflowFailedError, WorkflowIdConflictPolicy } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Repositories } from '../db/repositories';
import type { DeployableVersion } from '../db/repositories/deployments';
import { iso } from '../db/rows';
import {
  DEPLOY_AGENT_GONE,
  DEPLOY_CHECK_FAILED,
  type DeployCheck,
  type PromoteInput,
  promoteWorkflowId,
  testExpiryWorkflowId,
} from '../domain/runs/deploy';
import type { AuditNote } from '../domain/audit';
import { AppError } from '../domain/errors';
import { randomToken } from '../domain/ids';
import { mintPublicToken, publicTokenContext } from '../domain/public-token';
import { hostURL, notPublishableMessage, type ProdDeployment, type TestDeployment, VERSION_ID_HELP } from '../domain/publishing';
import type { SecretBox } from '../domain/secret-box';
import type { TurnLimits } from '../domain/runs/turn';
import type { promoteWorkflow, testExpiryWorkflow } from '../workflows/deploy';
import { AgentIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';

interface AgentsURLs {
  scheme: 'http' | 'https';
  domain: string;
  /** Unset: the port the caller reached the API on. */
  port?: number;
}

interface DeploymentsDeps {
  repos: Repositories;
  temporal: Client;
  opsQueue: string;
  box: SecretBox;
  urls: AgentsURLs;
  testTtlSeconds: number;
  /** How long `deployToProd` waits for its promotion before answering 504 (the run goes on). */
  promotionWaitMs: number;
  /** Where the eval gate's turns run, and their limits. */
  turnsQueue: string;
  limits: TurnLimits;
}

const versionNotFound = (versionId: string) => new AppError('version_not_found', `no version ${versionId} in this workspace; ${VERSION_ID_HELP}`);

/**
 * Test and prod deployments, rollback and publishable tokens. Deployments are `ops` workflows with
 * ids derived from agent and version; rollback is one statement (instant, no check: the version
 * served before). Only freelancer agents publish.
 */
export class DeploymentsService {
  constructor(private readonly deps: DeploymentsDeps) {}

  private url(label: string, callerPort: number | undefined): string {
    const { scheme, domain, port } = this.deps.urls;
    return hostURL(label, { scheme, domain, port: port ?? callerPort });
  }

  private async publishable(workspaceId: string, versionId: string): Promise<DeployableVersion> {
    const version = await this.deps.repos.deployments.version({ workspaceId, versionId });
    if (!version) throw versionNotFound(versionId);
    if (version.role !== 'freelancer') {
      throw new AppError('agent_not_publishable', notPublishableMessage(version.agentId, 'have test and prod URLs'));
    }
    return version;
  }

  private searchAttributes(v: DeployableVersion) {
    return [
      { key: WorkspaceIdKey, value: v.workspaceId },
      { key: AgentIdKey, value: v.agentId },
    ];
  }

  /** The version at an ephemeral URL until `expiresAt`; the same answer while it is live. `note`: the call's audit row. */
  async deployToTest(workspaceId: string, versionId: string, callerPort?: number, note: AuditNote = {}): Promise<TestDeployment> {
    const v = await this.publishable(workspaceId, versionId);
    note.targets = { ...note.targets, agentId: v.agentId, versionId: v.versionId };
    const { row } = await this.deps.repos.deployments.liveOrNewTest({
      agentId: v.agentId,
      versionId: v.versionId,
      versionNumber: v.number,
      hostLabel: randomToken(16),
      ttlSeconds: this.deps.testTtlSeconds,
    });
    // Started on every call: a run that is already waiting is found (USE_EXISTING), a closed one
    // is started again; either way the live URL has its timer.
    await this.deps.temporal.workflow.start<typeof testExpiryWorkflow>('testExpiryWorkflow', {
      workflowId: testExpiryWorkflowId(v.agentId, v.number),
      taskQueue: this.deps.opsQueue,
      args: [{ versionId: v.versionId }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      typedSearchAttributes: this.searchAttributes(v),
    });
    note.versionAfter = v.number;
    return { url: this.url(`${row.host_label}.test`, callerPort), expiresAt: iso(row.expires_at) };
  }

  /**
   * Promotes the version after its health check and eval gate (the promotion workflow). The current
   * production version answers at once, without a run. `skipEvals` skips the gate, and the
   * version records that it did (and `note`, the call's audit row, as `detail.evalGate`).
   */
  async deployToProd(
    workspaceId: string,
    versionId: string,
    callerPort?: number,
    options: { skipEvals?: boolean } = {},
    note: AuditNote = {},
  ): Promise<ProdDeployment> {
    const v = await this.publishable(workspaceId, versionId);
    note.targets = { ...note.targets, agentId: v.agentId, versionId: v.versionId };
    if (v.prodVersion !== null) note.versionBefore = v.prodVersion;
    if (v.prodVersion === v.number && v.slug) {
      note.versionAfter = v.number;
      return { url: this.url(v.slug, callerPort), versionNumber: v.number };
    }
    if (options.skipEvals === true) note.detail = { ...note.detail, evalGate: 'skipped' };
    const input: PromoteInput = {
      workspaceId,
      agentId: v.agentId,
      versionNumber: v.number,
      evals: { skip: options.skipEvals === true, limits: this.deps.limits, turnsQueue: this.deps.turnsQueue },
    };
    const handle = await this.deps.temporal.workflow.start<typeof promoteWorkflow>('promoteWorkflow', {
      workflowId: promoteWorkflowId(v.agentId, v.number),
      taskQueue: this.deps.opsQueue,
      args: [input],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      typedSearchAttributes: this.searchAttributes(v),
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AppError('worker_timeout', 'the promotion is still running (is a worker polling the ops queue?); call again to wait for it')),
        this.deps.promotionWaitMs,
      );
    });
    try {
      const result = await Promise.race([handle.result(), timeout]);
      note.versionAfter = result.versionNumber;
      return { url: this.url(result.slug, callerPort), versionNumber: result.versionNumber };
    } catch (err) {
      throw promotionError(err);
    } finally {
      clearTimeout(timer);
    }
  }

  /** `note`: the call's audit row (the production version before and after). */
  async rollback(workspaceId: string, agentId: string, versionId: string, note: AuditNote = {}): Promise<void> {
    note.targets = { ...note.targets, versionId };
    const r = await this.deps.repos.deployments.rollback({ workspaceId, agentId, versionId });
    if ('ok' in r) {
      Object.assign(note, { versionBefore: r.before, versionAfter: r.after });
      return;
    }
    if (r.missing === 'agent') throw new AppError('agent_not_found', 'no such agent');
    if (r.missing === 'version') throw new AppError('version_not_found', `agent ${agentId} has no version ${versionId}; ${VERSION_ID_HELP}`);
    throw new AppError('agent_not_deployed', 'the agent has no production version to roll back: deploy one with deployToProd first');
  }

  async publicToken(workspaceId: string, agentId: string): Promise<string> {
    const stored = await this.deps.repos.deployments.sealedToken({ workspaceId, agentId });
    if (!stored) throw new AppError('agent_not_found', 'no such agent');
    if (stored === 'none') throw notDeployed();
    return this.deps.box.open(stored.sealed, publicTokenContext(agentId));
  }

  /** A new token; the old one is refused from this moment (embeds resolve the token server-side, so they keep working). */
  async rotatePublicToken(workspaceId: string, agentId: string): Promise<string> {
    const minted = mintPublicToken(this.deps.box, agentId);
    if (await this.deps.repos.deployments.replaceToken({ workspaceId, agentId, token: minted })) return minted.token;
    const stored = await this.deps.repos.deployments.sealedToken({ workspaceId, agentId });
    if (!stored) throw new AppError('agent_not_found', 'no such agent');
    throw notDeployed();
  }
}

const notDeployed = () => new AppError('agent_not_deployed', 'the agent has no public token before its first deploy to production');

/** The head of a refusal's message, by the check that refused (unknown: a run recorded before it was said). */
const REFUSED_BY: Record<DeployCheck | 'unknown', string> = {
  health_check: 'the version failed its health check',
  eval_gate: 'the version passed its health check but failed its eval gate',
  unknown: 'the version failed its health check or its eval gate',
};

const refusingCheck = (failure: ApplicationFailure): DeployCheck | 'unknown' => {
  const check: unknown = failure.details?.[1];
  return check === 'health_check' || check === 'eval_gate' ? check : 'unknown';
};

/** A failed run as the caller's error: the check's findings, a vanished agent, or the engine. */
function promotionError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof WorkflowFailedError) {
    const cause = err.cause instanceof ApplicationFailure ? err.cause : err.cause?.cause;
    if (cause instanceof ApplicationFailure && cause.type === DEPLOY_CHECK_FAILED) {
      return new AppError('deploy_check_failed', `${REFUSED_BY[refusingCheck(cause)]}; production is unchanged: ${cause.message}`);
    }
    if (cause instanceof ApplicationFailure && cause.type === DEPLOY_AGENT_GONE) return new AppError('agent_not_found', 'no such agent');
  }
  return new AppError('temporal_unavailable', 'the promotion could not run; try again shortly', undefined, { cause: err });
}
