import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Repositories } from '../db/repositories';
import { type ApprovalRow, type ApprovalScope, toApproval } from '../db/repositories/approvals';
import { APPROVAL_SIGNAL, type ApprovalSignal } from '../domain/runs/approval';
import { type Approval, type ApprovalDecision, type ApprovalStatus, APPROVALS_LIST_LIMIT } from '../domain/approvals';
import { AppError } from '../domain/errors';
import { turnWorkflowId } from '../domain/runs/turn';

const notFound = () => new AppError('approval_not_found', 'no such approval');

/**
 * Deciding a tool call that waits for approval (docs/approvals.md). The decision is recorded
 * first, by a conditional update (the first one stands); then the turn's workflow is signalled
 * to wake. The workflow reads the decision from the database, so a signal that is lost (Temporal
 * unreachable) only delays the turn: repeating the request signals again, and at the latest the
 * approval timeout wakes the workflow, which then finds the decision.
 */
export class ApprovalsService {
  constructor(private readonly deps: { repos: Repositories; temporal: Client }) {}

  async get(scope: ApprovalScope, approvalId: string): Promise<Approval> {
    const row = await this.deps.repos.approvals.get({ approvalId, ...scope });
    if (!row) throw notFound();
    return toApproval(row);
  }

  /** The workspace's approvals, newest first (at most 100): what waits now, with `status: pending`. */
  async list(workspaceId: string, filter: { status?: ApprovalStatus; turnId?: string }): Promise<Approval[]> {
    return (await this.deps.repos.approvals.list({ workspaceId, ...filter, limit: APPROVALS_LIST_LIMIT })).map(toApproval);
  }

  /** Records the decision and wakes the turn; 409 `approval_decided` when one was recorded before. */
  async decide(scope: ApprovalScope, approvalId: string, { decision, note }: ApprovalDecision): Promise<Approval> {
    const status = decision === 'approve' ? 'approved' : 'denied';
    const decided = await this.deps.repos.approvals.decide({ approvalId, status, note: note ?? null, ...scope });
    if (decided) {
      await this.wake(decided);
      return toApproval(decided);
    }
    const row = await this.deps.repos.approvals.get({ approvalId, ...scope });
    if (!row) throw notFound();
    // A decision the turn has not taken up yet (its signal may have been lost): tell it again.
    if (!row.announced && (row.status === 'approved' || row.status === 'denied')) await this.wake(row);
    throw new AppError('approval_decided', `the approval is already ${row.status}${row.note ? ` (note: ${row.note})` : ''}; the first decision stands`);
  }

  private async wake(row: ApprovalRow): Promise<void> {
    const signal: ApprovalSignal = { approvalId: row.id };
    try {
      await this.deps.temporal.workflow.getHandle(turnWorkflowId(row.turn_id)).signal(APPROVAL_SIGNAL, signal);
    } catch (e) {
      // The workflow is gone: its turn has ended, and the approval with it.
      if (e instanceof WorkflowNotFoundError) return;
      throw new AppError('temporal_unavailable', 'the decision is recorded, but the turn could not be told yet; repeat the request to tell it again', undefined, { cause: e });
    }
  }
}
