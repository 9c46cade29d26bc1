/**
 * What the API, the turn workflow and its activities share: the turn's input and limits, its
 * workflow id and its failure types. Pure declarations, so the workflow bundle may import them.
 */

/** Limits of one turn; the API passes them from configuration so tests can shorten them. */
export interface TurnLimits {
  /** Model calls a turn may make before it stops with an error. */
  maxSteps: number;
  /** Attempts of one model call (429, 5xx and network errors are retried with backoff). */
  modelMaxAttempts: number;
  /** A model activity that stops heartbeating this long is retried on another worker. */
  heartbeatTimeoutMs: number;
  /** First retry delay of a model call (doubled each time, honouring Retry-After). */
  modelRetryInitialMs: number;
  /**
   * A turn still running this long ends with an `error` event (`TURN_TIMEOUT_MS`). Absent, like
   * `reserveCredits`, only from the inputs of schedules written before it existed.
   */
  turnTimeoutMs?: number;
  /** Credits a turn holds back from the workspace's balance while it runs (`TURN_RESERVE_CREDITS`). */
  reserveCredits?: number;
}

export interface TurnInput {
  turnId: string;
  limits: TurnLimits;
}

/**
 * How a turn's workflow ended, as its result (the events say the rest): an eval run's checks read
 * the tool calls from it. `arguments` over 10 000 characters of JSON are replaced by a note.
 */
export interface TurnOutcome {
  status: 'done' | 'error';
  toolCalls: { tool: string; arguments: Record<string, unknown> }[];
}
/** The most tool calls a turn's result lists (a turn makes at most TURN_MAX_STEPS × the calls of a step). */
export const TURN_OUTCOME_MAX_CALLS = 100;
const MAX_OUTCOME_ARGUMENT_CHARS = 10_000;

/** One call as a turn's result lists it. */
export function turnOutcomeCall(tool: string, args: Record<string, unknown>): TurnOutcome['toolCalls'][number] {
  const chars = JSON.stringify(args).length;
  return { tool, arguments: chars > MAX_OUTCOME_ARGUMENT_CHARS ? { _omitted: `${chars} characters of arguments` } : args };
}

/** What a cancelled turn's `error` event says (written by its workflow, or by the API when the workflow is gone). */
export const TURN_CANCELLED_MESSAGE = 'the turn was cancelled';

/** The turn's workflow id, derived from the turn id so that a repeated start finds the same run. */
export const turnWorkflowId = (turnId: string) => `turn-${turnId}`;

/** Failure types of the turn's activities (ApplicationFailure.type), read by the turn workflow. */
export const TurnFailure = {
  /** The provider refused the request (400, 401, 403, 404, 422…): trying again cannot help. */
  modelRejected: 'model_rejected',
  /** The provider could not answer (429, 5xx, network): retried with backoff. */
  modelUnavailable: 'model_unavailable',
  /** The turn, or the agent of its conversation, does not exist. */
  turnMissing: 'turn_missing',
  /** The agent (or the version the conversation is pinned to) was deleted mid-turn. */
  agentGone: 'agent_gone',
  /** The turn already ended (another attempt finished it): nothing more to do. */
  turnFinished: 'turn_finished',
  /** Before a model step: the workspace's credits cannot cover it. */
  creditsExhausted: 'credits_exhausted',
  /** Before a model step: the agent's credit cap is reached. */
  creditCapReached: 'credit_cap_reached',
} as const;

type TurnFailureType = (typeof TurnFailure)[keyof typeof TurnFailure];

/** Failures of a model step that no retry can mend. */
export const nonRetryableTurnFailures: TurnFailureType[] = [
  TurnFailure.modelRejected,
  TurnFailure.turnMissing,
  TurnFailure.agentGone,
  TurnFailure.turnFinished,
  TurnFailure.creditsExhausted,
  TurnFailure.creditCapReached,
];

/** A failure that stopped a turn for its credits: the turn's `error` event carries its type as its `code`. */
export const isCreditStop = (type: string | null | undefined): type is typeof TurnFailure.creditsExhausted | typeof TurnFailure.creditCapReached =>
  type === TurnFailure.creditsExhausted || type === TurnFailure.creditCapReached;
