import type { Knex } from 'knex';
import type { Approval, ApprovalStatus } from '../../domain/approvals';
import type { Db } from '../connect';
import { iso } from '../rows';

export interface ApprovalRow {
  id: string;
  turn_id: string;
  tool_call_id: string;
  workspace_id: string;
  conversation_id: string;
  agent_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  approver: Approval['approver'];
  status: ApprovalStatus;
  note: string | null;
  timeout_ms: number;
  announced: boolean;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
}

export function toApproval(row: ApprovalRow): Approval {
  return {
    id: row.id,
    turnId: row.turn_id,
    conversationId: row.conversation_id,
    agentId: row.agent_id,
    tool: row.tool,
    arguments: row.arguments,
    approver: row.approver,
    status: row.status,
    note: row.note,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    decidedAt: iso(row.decided_at),
  };
}

/**
 * Which approvals a reader may see and decide: a workspace's (an API key), those of one public
 * conversation its agent lets the visitor decide (`approver: visitor`), one turn's (its workflow).
 */
export type ApprovalScope = { workspaceId: string } | { visitorConversationId: string } | { turnId: string };
function scoped(scope: ApprovalScope): Record<string, string> {
  if ('workspaceId' in scope) return { workspace_id: scope.workspaceId };
  if ('visitorConversationId' in scope) return { conversation_id: scope.visitorConversationId, approver: 'visitor' };
  return { turn_id: scope.turnId };
}

/**
 * Tool calls waiting for a decision (migration 024). A row leaves `pending` once, by a
 * conditional update: a decision, the timeout, or the end of its turn (TurnsRepository.finish).
 */
export class ApprovalsRepository {
  constructor(private readonly db: Db) {}

  /** The row of a turn's tool call, created if there is none yet; `created` is false for a re-run. */
  async open(
    row: Pick<ApprovalRow, 'id' | 'turn_id' | 'tool_call_id' | 'workspace_id' | 'conversation_id' | 'agent_id' | 'tool' | 'arguments' | 'approver' | 'timeout_ms'>,
    trx: Knex.Transaction,
  ): Promise<{ row: ApprovalRow; created: boolean }> {
    const [inserted] = await trx('tool_approvals')
      .insert({ ...row, arguments: JSON.stringify(row.arguments), expires_at: trx.raw(`now() + (? * interval '1 millisecond')`, [row.timeout_ms]) })
      .onConflict(['turn_id', 'tool_call_id'])
      .ignore()
      .returning('*');
    if (inserted) return { row: inserted as ApprovalRow, created: true };
    const existing = await trx<ApprovalRow>('tool_approvals').where({ turn_id: row.turn_id, tool_call_id: row.tool_call_id }).first();
    return { row: existing!, created: false };
  }

  async get({ approvalId, ...scope }: { approvalId: string } & ApprovalScope): Promise<ApprovalRow | undefined> {
    return this.db<ApprovalRow>('tool_approvals').where({ id: approvalId, ...scoped(scope) }).first();
  }

  /** The workspace's approvals, newest first, at most `limit`, optionally by status and turn. */
  async list({ workspaceId, status, turnId, limit }: { workspaceId: string; status?: ApprovalStatus; turnId?: string; limit: number }): Promise<ApprovalRow[]> {
    const query = this.db<ApprovalRow>('tool_approvals').where({ workspace_id: workspaceId });
    if (status) query.andWhere({ status });
    if (turnId) query.andWhere({ turn_id: turnId });
    return query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit);
  }

  /** The first decision: the row as decided now, or undefined when it was no longer pending. */
  async decide(
    { approvalId, status, note, ...scope }: { approvalId: string; status: 'approved' | 'denied'; note: string | null } & ApprovalScope,
    trx?: Knex.Transaction,
  ): Promise<ApprovalRow | undefined> {
    const [row] = await (trx ?? this.db)('tool_approvals')
      .where({ id: approvalId, status: 'pending', ...scoped(scope) })
      .update({ status, note, decided_at: (trx ?? this.db).fn.now() })
      .returning('*');
    return row as ApprovalRow | undefined;
  }

  /** No decision came in time: `expired`, unless a decision got there first. Answers the row as it stands. */
  async expire({ approvalId, turnId }: { approvalId: string; turnId: string }): Promise<ApprovalRow | undefined> {
    await this.db('tool_approvals').where({ id: approvalId, turn_id: turnId, status: 'pending' }).update({ status: 'expired', decided_at: this.db.fn.now() });
    return this.get({ approvalId, turnId });
  }

  /** Marks the outcome announced; true only for the call that did (its event is appended in `trx`). */
  async announce({ approvalId }: { approvalId: string }, trx: Knex.Transaction): Promise<boolean> {
    return (await trx('tool_approvals').where({ id: approvalId, announced: false }).whereNot({ status: 'pending' }).update({ announced: true })) > 0;
  }
}
