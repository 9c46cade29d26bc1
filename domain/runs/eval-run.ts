/**
 * What the eval-run workflow shares with the API and its activities: its input, its ids and the
 * shapes its activities answer. Pure declarations without zod (domain/eval-runs.ts has the API's
 * schemas), so the workflow bundle may import them.
 */
import type { TurnErrorCode } from '../turn-events';
import type { TurnLimits } from './turn';

/** How many cases of one run are in flight at once (each holds one running turn at a time). */
export const EVAL_RUN_PARALLELISM = 4;

/** The run's workflow id, derived from its id. */
export const evalRunWorkflowId = (runId: string) => `eval-run-${runId}`;

/** Why a run was made: by a builder (`manual`), or by `deployToProd`'s gate for the candidate or the production version. */
export type EvalRunPurpose = 'manual' | 'deploy_candidate' | 'deploy_baseline';

/** A tool call of a case's turns, as evidence. */
export interface EvalToolCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/** The eval-run workflow's input: the run's row exists (with its case snapshot) before it starts. */
export interface EvalRunInput {
  runId: string;
  workspaceId: string;
  agentId: string;
  /** The snapshot's case ids, in order. */
  caseIds: string[];
  limits: TurnLimits;
  /** The queue the cases' turns (child workflows) run on. */
  turnsQueue: string;
}

/** Why a case stopped for credits: the code a turn stopped for its credits carries (a type import, erased from the bundle). */
type EvalCreditCode = TurnErrorCode;

/**
 * What opening a case's next turn gives: the turn, the end of the case's messages, or why it could
 * not start (`code` when it was refused for credits).
 */
export type EvalTurnOpening = { turnId: string; conversationId: string } | { end: true } | { refused: string; code?: EvalCreditCode };

/** What the workflow hands the grader about one case. */
export interface EvalCaseTurns {
  runId: string;
  caseId: string;
  turnIds: string[];
  toolCalls: EvalToolCall[];
  /** Set when the case could not start a turn (no credits, the agent gone). */
  refused?: string;
  /** Set with `refused` when the turn was refused for credits. */
  refusedCode?: EvalCreditCode;
}
