import type { Approvers } from './agent.js';

/**
 * Where an approval stands: `pending` until decided; `approved` or `denied` by a person;
 * `expired` when no decision came within the agent's `approvalTimeoutMs` (the call was denied);
 * `cancelled` when the turn ended first (cancelled, or past its deadline).
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';

/** A tool call that waits for (or was settled by) a person's decision (`ws.approval(id).get()`). */
export interface Approval {
  /** Approval id (prefix `apr_`), as the turn's `approval` event gives it. */
  id: string;
  /** The turn that waits. */
  turnId: string;
  /** That turn's conversation. */
  conversationId: string;
  /** The agent whose tool it is. */
  agentId: string;
  /** The tool as `tool` events name it: an HTTP tool's name, `server.tool` for an MCP tool. */
  tool: string;
  /** The arguments the model gave, secret values masked. */
  arguments: Record<string, unknown>;
  /** Who may decide it: an API key (`workspace`), or also the public visitor (`visitor`). */
  approver: Approvers;
  /** Where it stands. */
  status: ApprovalStatus;
  /** The note given with the decision, if any. */
  note: string | null;
  /** When the call started waiting. */
  createdAt: string;
  /** When a pending call is denied for want of a decision. */
  expiresAt: string;
  /** When it left `pending`. */
  decidedAt: string | null;
}

/** The body of a decision: what `approve(note?)` and `deny(note?)` send. */
export interface ApprovalDecision {
  /** Run the call, or not. */
  decision: 'approve' | 'deny';
  /** Shown to the model with the outcome (up to 2000 characters). */
  note?: string;
}
