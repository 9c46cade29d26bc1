import { executeChild, ParentClosePolicy } from '@temporalio/workflow';
import { type TurnInput, type TurnLimits, turnWorkflowId } from '../domain/turn-run';
import { AgentIdKey, ConversationIdKey, WorkspaceIdKey } from './search-attributes';
import { summaries } from './summaries';
import type { turnWorkflow } from './turn';

/**
 * Runs a trigger run's turn as the ordinary `turnWorkflow`, a child workflow with id
 * `turn-<turnId>` (so it streams, debits and resumes like a turn asked through the API), and
 * waits for it: a run lasts until its turn ends.
 */
export async function runChildTurn(input: {
  turnId: string;
  limits: TurnLimits;
  turnsQueue: string;
  workspaceId: string;
  agentId: string;
  conversationId: string;
  /** What started the run: the child's summary in the Temporal UI. */
  origin: 'trigger' | 'webhook';
}): Promise<void> {
  const args: TurnInput = { turnId: input.turnId, limits: input.limits };
  await executeChild<typeof turnWorkflow>('turnWorkflow', {
    workflowId: turnWorkflowId(input.turnId),
    staticSummary: summaries.childTurn(input.origin),
    taskQueue: input.turnsQueue,
    args: [args],
    // The turn ends itself with a terminal event on every path; a cancelled run must not cut it short.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: WorkspaceIdKey, value: input.workspaceId },
      { key: AgentIdKey, value: input.agentId },
      { key: ConversationIdKey, value: input.conversationId },
    ],
  });
}
