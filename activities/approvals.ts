import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { ApprovalRow } from '../db/repositories/approvals';
import { DEFAULT_APPROVAL_TIMEOUT_MS, notRunResult, type ApprovalOutcome } from '../domain/runs/approval';
import { newId } from '../domain/ids';
import type { TurnEvent } from '../domain/turn-events';
import type { TranscriptToolCall, TurnRef } from '../domain/turn-transcript';
import type { CredentialSource } from '../infra/credential-source';
import { maskSecrets } from './tools/substitute';
import { loadAgentTurnContext } from './turn-context';

interface ApprovalDeps {
  db: Db;
  repos: Repositories;
  /** The credentials the call's arguments are masked against, as tool results are. */
  credentials: CredentialSource;
}

/** The note of a call an eval run denies (docs/evals.md): what the model and the evidence read. */
export const EVAL_DENIAL_NOTE = 'an evaluation run approves no tool calls';

/** Every string in `value` masked; the shape kept, so the arguments stay arguments. */
function maskValues(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((v) => maskValues(v, mask));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskValues(v, mask)]));
  return value;
}

const approvalEvent = (row: ApprovalRow): Extract<TurnEvent, { type: 'approval' }> => ({
  type: 'approval',
  approvalId: row.id,
  tool: row.tool,
  arguments: row.arguments,
  approver: row.approver,
  status: row.status === 'pending' ? 'pending' : row.status === 'approved' ? 'approved' : row.status === 'denied' ? 'denied' : 'expired',
  ...(row.note && row.status !== 'pending' ? { note: row.note } : {}),
});

/** How a call settled, and what the model is told when it did not run. */
export type SettledApproval = { status: 'pending' } | { status: 'approved' } | { status: Exclude<ApprovalOutcome, 'approved'>; content: string };

/**
 * The two steps around a wait for a person (docs/approvals.md), run as local activities by the
 * turn workflow: both are short, idempotent database writes.
 */
export function createApprovalActivities(deps: ApprovalDeps) {
  return {
    /**
     * Records the call as pending and appends its `approval` event, once: a re-run finds the row
     * of (turn, tool call) and appends nothing. Answers the id the workflow waits on and how long.
     */
    async requestApproval(input: TurnRef & { call: TranscriptToolCall; tool: string }): Promise<{ approvalId: string; timeoutMs: number }> {
      const context = await loadAgentTurnContext(deps.repos, input.turnId);
      const { turn, conversation, config, agentId } = context;
      const credentials = await deps.credentials.load({ workspaceId: turn.workspace_id, agentId, conversationId: conversation.id });
      const args = maskValues(input.call.args, (text) => maskSecrets(text, credentials)) as Record<string, unknown>;
      const timeoutMs = config.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
      return deps.db.transaction(async (trx) => {
        const { row, created } = await deps.repos.approvals.open(
          {
            id: newId('approval'),
            turn_id: turn.id,
            tool_call_id: input.call.id,
            workspace_id: turn.workspace_id,
            conversation_id: conversation.id,
            agent_id: agentId,
            tool: input.tool,
            arguments: args,
            approver: config.approvals ?? 'workspace',
            timeout_ms: timeoutMs,
          },
          trx,
        );
        if (created) await deps.repos.turns.append({ turnId: turn.id, events: [approvalEvent(row)] }, trx);
        // Nobody watches an eval run's case: its calls are denied at once, so a run (and the
        // deploy gate waiting on it) never waits a day. The model is told, as for any denial.
        if (conversation.eval_run_id !== null) {
          await deps.repos.approvals.decide({ approvalId: row.id, status: 'denied', note: EVAL_DENIAL_NOTE, turnId: turn.id }, trx);
          return { approvalId: row.id, timeoutMs: 0 };
        }
        return { approvalId: row.id, timeoutMs: row.timeout_ms };
      });
    },

    /**
     * After a signal (a decision was recorded) or the timeout (`timedOut`: expire it unless a
     * decision got there first): the status that stands, its `approval` event appended once.
     * `pending` only after a signal that found no decision: the workflow waits on.
     */
    async settleApproval(input: TurnRef & { approvalId: string; timedOut: boolean }): Promise<SettledApproval> {
      const row = input.timedOut ? await deps.repos.approvals.expire(input) : await deps.repos.approvals.get(input);
      if (!row) return { status: 'denied', content: notRunResult('denied', null, 0) };
      if (row.status === 'pending') return { status: 'pending' };
      await deps.db.transaction(async (trx) => {
        if (await deps.repos.approvals.announce(input, trx)) await deps.repos.turns.append({ turnId: input.turnId, events: [approvalEvent(row)] }, trx);
      });
      if (row.status === 'approved') return { status: 'approved' };
      // `cancelled`: the turn ended while it waited; the workflow is being cancelled too.
      const status = row.status === 'expired' ? 'expired' : 'denied';
      return { status, content: notRunResult(status, row.note, row.timeout_ms) };
    },
  };
}

export type ApprovalActivities = ReturnType<typeof createApprovalActivities>;
