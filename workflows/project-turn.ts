import { type ActivityOptions, ChildWorkflowFailure, ParentClosePolicy, proxyActivities } from '@temporalio/workflow';
import type { DelegationActivities } from '../activities/delegation';
import type { ProjectTurnInput } from '../domain/runs/project-turn';
import { turnWorkflowId } from '../domain/runs/turn';
import { AgentIdKey, ConversationIdKey, ProjectIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';
import { summaries } from './summaries';
import { startTurnChild } from './child-turn';
import { runTurn } from './turn';

/**
 * A turn of a project conversation, answered by the project's manager: the ordinary turn loop
 * (model call → tool calls → …), whose tool calls are delegations. Each delegation runs the
 * member's turn as a child workflow — the ordinary `turnWorkflow`, id `turn-<turnId>`, so it
 * streams, debits and resumes like any turn — and its answer goes back to the manager.
 */
export async function projectTurnWorkflow(input: ProjectTurnInput): Promise<void> {
  const options: ActivityOptions = {
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
  };
  const delegation = (summary: string) => proxyActivities<DelegationActivities>({ ...options, summary });
  await runTurn(input, async (call, shownName) => {
    // The member is known by the id the manager gave until the delegation is accepted.
    const asked = typeof call.args.agentId === 'string' ? call.args.agentId : shownName;
    const started = await delegation(summaries.delegate(asked)).startDelegation({ turnId: input.turnId, call, reserve: input.limits.reserveCredits ?? 0 });
    if ('result' in started) return started.result;
    const { child } = started;
    try {
      const member = await startTurnChild(child.turnId, {
        workflowId: turnWorkflowId(child.turnId),
        staticSummary: summaries.delegatedTurn(child.name),
        args: [{ turnId: child.turnId, limits: input.limits }],
        // The member's turn ends itself with a terminal event on every path. A manager's turn that
        // is cancelled (or runs out of time) cancels it, as its in-flight work, and waits for it to
        // end; one that is terminated (no code of it runs) leaves it to finish on its own.
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: [
          { key: WorkspaceIdKey, value: input.workspaceId },
          { key: AgentIdKey, value: child.agentId },
          { key: ConversationIdKey, value: child.conversationId },
          { key: ProjectIdKey, value: input.projectId },
        ],
      });
      await member.result();
    } catch (err) {
      // A member's turn that was terminated or timed out: `finishDelegation` reports it as failed.
      if (!(err instanceof ChildWorkflowFailure)) throw err;
    }
    return delegation(summaries.delegated(child.name)).finishDelegation({ turnId: input.turnId, call, child });
  });
}
