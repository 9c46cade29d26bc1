import {
  type ActivityOptions,
  ActivityFailure,
  CancellationScope,
  ChildWorkflowFailure,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
} from '@temporalio/workflow';
import type { EvalRunActivities } from '../activities/eval-run';
import { EVAL_RUN_PARALLELISM, type EvalRunInput, type EvalToolCall, type EvalTurnOpening } from '../domain/runs/eval-run';
import { type TurnOutcome, turnWorkflowId } from '../domain/runs/turn';
import { startTurnChild } from './child-turn';
import { recordOutcome } from './outcome-sink';
import { AgentIdKey, ConversationIdKey, EvalRunIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';
import { summaries } from './summaries';

/** The most messages a case has (domain/evals.ts): a bound on each case's loop. */
const MAX_CASE_MESSAGES = 20;

const opening: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  // A case waits (retries) while the workspace runs its most turns: up to about ten minutes.
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 70, nonRetryableErrorTypes: ['EvalRunGone'] },
};
/** Grading may call the judge's model: as long as a model step, three attempts (activities/eval-run.ts counts them). */
const grading: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 3, nonRetryableErrorTypes: ['EvalRunGone'] },
};
const act = (options: ActivityOptions, summary: string) => proxyActivities<EvalRunActivities>({ ...options, summary });

/**
 * An evaluation run (docs/evals.md): runs each case of the run's snapshot as ordinary turns of
 * its own conversation — child `turnWorkflow`s, id `turn-<turnId>`, so each streams, is billed
 * and resumes like any turn — at most EVAL_RUN_PARALLELISM cases at once, grades each as it ends,
 * and ends the run `completed`. Cancelling the run cancels the turns in flight (each still ends
 * itself once and pays what it used) and ends it `cancelled`.
 */
export async function evalRunWorkflow(input: EvalRunInput): Promise<{ status: 'completed' | 'cancelled' | 'failed' }> {
  const end = (status: 'completed' | 'cancelled' | 'failed', error?: string) =>
    CancellationScope.nonCancellable(() => act(opening, summaries.evalEnd(status)).finishEvalRun({ runId: input.runId, status, ...(error ? { error } : {}) }));
  try {
    const queue = [...input.caseIds];
    const lane = async () => {
      for (let caseId = queue.shift(); caseId !== undefined; caseId = queue.shift()) await runCase(input, caseId);
    };
    await Promise.all(Array.from({ length: Math.min(EVAL_RUN_PARALLELISM, queue.length) }, lane));
    await end('completed');
    recordOutcome('eval_run', 'completed');
    return { status: 'completed' };
  } catch (err) {
    if (isCancellation(err)) {
      await end('cancelled');
      recordOutcome('eval_run', 'cancelled');
      return { status: 'cancelled' };
    }
    await end('failed', err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err));
    recordOutcome('eval_run', 'failed');
    return { status: 'failed' };
  }
}

/** One case: its messages as turns, in order, until one does not answer; then its grading. */
async function runCase(input: EvalRunInput, caseId: string): Promise<void> {
  const turnIds: string[] = [];
  const toolCalls: EvalToolCall[] = [];
  let refused: Extract<EvalTurnOpening, { refused: string }> | undefined;
  for (let index = 0; index < MAX_CASE_MESSAGES; index++) {
    const opened = await act(opening, summaries.evalOpen(caseId, index + 1)).openEvalTurn({ runId: input.runId, caseId, index, reserve: input.limits.reserveCredits ?? 0 });
    if ('end' in opened) break;
    if ('refused' in opened) {
      refused = opened;
      break;
    }
    turnIds.push(opened.turnId);
    const outcome = await caseTurn(input, caseId, index, opened);
    toolCalls.push(...outcome.toolCalls);
    if (outcome.status !== 'done') break;
  }
  // Only data of the activity's input changed here (the refusal's code): the commands, and so replay, are as before.
  await act(grading, summaries.evalGrade(caseId)).gradeEvalCase({
    runId: input.runId,
    caseId,
    turnIds,
    toolCalls,
    ...(refused ? { refused: refused.refused, ...(refused.code ? { refusedCode: refused.code } : {}) } : {}),
  });
}

async function caseTurn(input: EvalRunInput, caseId: string, index: number, opened: { turnId: string; conversationId: string }): Promise<TurnOutcome> {
  const child = await startTurnChild(opened.turnId, {
    workflowId: turnWorkflowId(opened.turnId),
    staticSummary: summaries.evalTurn(caseId, index + 1),
    taskQueue: input.turnsQueue,
    args: [{ turnId: opened.turnId, limits: input.limits }],
    // The turn ends itself on every path: a cancelled run cancels it (and waits for its end); a
    // terminated one leaves it to finish on its own.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: WorkspaceIdKey, value: input.workspaceId },
      { key: AgentIdKey, value: input.agentId },
      { key: ConversationIdKey, value: opened.conversationId },
      { key: EvalRunIdKey, value: input.runId },
    ],
  });
  try {
    return await child.result();
  } catch (err) {
    // A turn terminated or timed out from outside: the case's grading reads how it ended.
    if (err instanceof ChildWorkflowFailure && !isCancellation(err)) return { status: 'error', toolCalls: [] };
    throw err;
  }
}
