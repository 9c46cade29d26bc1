import { approvalDecisionSchema, approvalIdParam, approvalSchema, listApprovalsQuerySchema } from '../../domain/approvals';
import type { ApprovalsService } from '../../services/approvals';
import { workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';

/** Tool calls waiting for a decision (docs/approvals.md): `ws.approval(id)`, `turn.approve()/deny()` in the SDK. */
export function approvalRoutes(r: ApiRouter, approvals: ApprovalsService): void {
  r.add(
    {
      method: 'get', path: '/v1/approvals', operationId: 'listApprovals', tag: 'Conversations', role: 'reviewer',
      summary: "The workspace's approvals, newest first (at most 100): `?status=pending` for the calls waiting now, `?turnId=` for one turn's",
      query: listApprovalsQuerySchema,
      response: { status: 200, description: 'The approvals', schema: listSchema(approvalSchema, { id: 'ApprovalList' }) },
    },
    async (ctx, { query }) => listOf(await approvals.list(workspaceOf(ctx), query)),
  );
  r.add(
    {
      method: 'get', path: '/v1/approvals/:approvalId', operationId: 'getApproval', tag: 'Conversations', role: 'reviewer',
      summary: 'A tool call waiting for (or settled by) a decision',
      params: approvalIdParam,
      response: { status: 200, description: 'The approval', schema: approvalSchema },
      errors: ['approval_not_found'],
    },
    (ctx, { params }) => approvals.get({ workspaceId: workspaceOf(ctx) }, params.approvalId),
  );
  r.add(
    {
      method: 'post', path: '/v1/approvals/:approvalId', operationId: 'decideApproval', tag: 'Conversations', role: 'reviewer',
      summary: 'Approve or deny a waiting tool call; the first decision stands and the turn goes on',
      params: approvalIdParam, body: approvalDecisionSchema,
      response: { status: 200, description: 'The approval as decided', schema: approvalSchema },
      errors: ['approval_not_found', 'approval_decided', 'temporal_unavailable'],
    },
    (ctx, { params, body }) => approvals.decide({ workspaceId: workspaceOf(ctx) }, params.approvalId, body),
  );
}
