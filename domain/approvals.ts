import { z } from 'zod';
import type { AgentConfig } from './agent';
import { approversSchema } from './agent';
import { plainText } from './publishing';

/**
 * Tool calls a person approves (docs/approvals.md): which calls wait, the resource the API answers
 * and the decision it takes. What the turn workflow shares is in approval-run.ts.
 */

/**
 * Whether a call of the tool the turn's events show as `shownName` waits for approval: an HTTP
 * tool by its name, an MCP tool (`server.tool`) by its server's `approval`. A built-in never does,
 * unless an MCP server of the same shown name says so (the stricter reading wins).
 */
export function needsApproval(config: Pick<AgentConfig, 'httpTools' | 'mcpServers'>, shownName: string): boolean {
  if (config.httpTools.some((t) => t.name === shownName && t.approval === 'required')) return true;
  const dot = shownName.indexOf('.');
  if (dot < 0) return false;
  const server = config.mcpServers.find((s) => s.name === shownName.slice(0, dot));
  const approval = server?.approval;
  if (approval === undefined || approval === 'none') return false;
  return approval === 'required' || approval.tools.includes(shownName.slice(dot + 1));
}

export const approvalStatusSchema = z
  .enum(['pending', 'approved', 'denied', 'expired', 'cancelled'])
  .describe('`pending` until decided; `expired`: no decision within the timeout (the call was denied); `cancelled`: the turn ended first.');
export type ApprovalStatus = z.infer<typeof approvalStatusSchema>;

/** `GET /v1/approvals`: the workspace's approvals, newest first, by status and turn. */
export const listApprovalsQuerySchema = z
  .object({
    status: approvalStatusSchema.optional().describe('Only approvals in this status (`pending`: those waiting now).'),
    turnId: z.string().min(1).max(100).optional().describe('Only the approvals of this turn.'),
  })
  .strict();

/** The most approvals one list answers. */
export const APPROVALS_LIST_LIMIT = 100;

/** `:approvalId`: any short text, so that an unknown id answers 404 rather than 400. */
export const approvalIdParam = z.object({ approvalId: z.string().min(1).max(100) });

export const approvalDecisionSchema = z
  .object({
    decision: z.enum(['approve', 'deny']),
    note: plainText(2000).optional().describe('Shown to the model with the outcome (a denial\'s reason, or a condition of the approval).'),
  })
  .strict()
  .meta({ id: 'ApprovalDecision', description: 'Approve or deny a pending tool call. The first decision stands.' });
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

/** The public route's body: the decision, and which visitor makes it (as the history route's `userId`). */
export const publicApprovalDecisionSchema = approvalDecisionSchema
  .extend({ userId: plainText(200).pipe(z.string().trim().min(1, 'must not be empty')) })
  .strict()
  .meta({ id: 'PublicApprovalDecision', description: "A visitor's decision on a tool call of their own conversation. The first decision stands." });

export const approvalSchema = z
  .object({
    id: z.string().startsWith('apr_'),
    turnId: z.string(),
    conversationId: z.string(),
    agentId: z.string(),
    tool: z.string().describe('The tool as the turn\'s events name it: an HTTP tool\'s name, `server.tool` for an MCP tool.'),
    arguments: z.record(z.string(), z.unknown()).describe('The arguments the model gave, secret values masked.'),
    approver: approversSchema,
    status: approvalStatusSchema,
    note: z.string().nullable(),
    createdAt: z.string(),
    expiresAt: z.string().describe('When a pending call is denied for want of a decision.'),
    decidedAt: z.string().nullable(),
  })
  .strict()
  .meta({ id: 'Approval', description: 'A tool call waiting for (or settled by) a person\'s decision.' });
export type Approval = z.infer<typeof approvalSchema>;
