/**
 * Evaluation cases of an agent (`agent.evals`): a conversation to replay and checks on its result.
 * The server's schemas are in `domain/evals.ts`. A case is stored with its defaults filled in
 * (`EvalCheck`, `EvalCase`); `put` takes them optional (`EvalCheckInput`, `EvalCaseDefinition`).
 * Only the cases exist so far: eval runs, which replay them and grade the checks, are not built yet.
 */

/** The final reply contains `text`. */
export interface ContainsCheck {
  kind: 'contains';
  /** 1 to 8000 characters. */
  text: string;
  /** Whether letters must match in case; `put` defaults it to false. */
  caseSensitive: boolean;
}

/** The final reply does not contain `text`. */
export interface NotContainsCheck {
  kind: 'not_contains';
  /** 1 to 8000 characters. */
  text: string;
  /** Whether letters must match in case; `put` defaults it to false. */
  caseSensitive: boolean;
}

/** The final reply matches a JavaScript regular expression somewhere. */
export interface MatchesCheck {
  kind: 'matches';
  /** At most 500 characters; must compile with `new RegExp(pattern, flags)`, else `put` is refused (400 naming the field). */
  pattern: string;
  /** A subset of `imsu`; `put` defaults it to `""`. */
  flags: string;
}

/** The final reply is JSON that `schema` accepts. */
export interface JsonSchemaCheck {
  kind: 'json_schema';
  /** A JSON Schema (draft 2020-12) object, at most 20 000 characters as JSON. */
  schema: Record<string, unknown>;
}

/** The case's turns called `tool` at least once, with `arguments` when given. */
export interface CalledToolCheck {
  kind: 'called_tool';
  /** The tool as events show it: `web.fetch`, an HTTP tool's name, `<server>.<tool>` for MCP. */
  tool: string;
  /** A subset to match: each field given must equal the call's (recursively for objects). Absent: any arguments. */
  arguments?: Record<string, unknown>;
}

/** The case's turns never called `tool`. */
export interface NotCalledToolCheck {
  kind: 'not_called_tool';
  /** The tool as events show it. */
  tool: string;
}

/** The case's turns cost at most `credits` in all. */
export interface MaxCreditsCheck {
  kind: 'max_credits';
  /** More than 0. */
  credits: number;
}

/** A model grades the final reply against `rubric` (0 to 1); passes at `threshold` or above. */
export interface JudgeCheck {
  kind: 'judge';
  /** 1 to 4000 characters. */
  rubric: string;
  /** 0 to 1; `put` defaults it to 0.7. */
  threshold: number;
  /** The grade whose model judges; absent: the evaluated version's grade. */
  grade?: 'standard' | 'premium';
}

/** One check of a stored case, defaults filled in. */
export type EvalCheck =
  | ContainsCheck
  | NotContainsCheck
  | MatchesCheck
  | JsonSchemaCheck
  | CalledToolCheck
  | NotCalledToolCheck
  | MaxCreditsCheck
  | JudgeCheck;

/** `T` with the fields `K` optional, as one object type. */
type WithDefaults<T, K extends keyof T> = { [P in keyof (Omit<T, K> & Partial<Pick<T, K>>)]: (Omit<T, K> & Partial<Pick<T, K>>)[P] };

/** A check as `agent.evals.put` takes it: like `EvalCheck`, the fields with defaults optional. */
export type EvalCheckInput =
  | WithDefaults<ContainsCheck, 'caseSensitive'>
  | WithDefaults<NotContainsCheck, 'caseSensitive'>
  | WithDefaults<MatchesCheck, 'flags'>
  | JsonSchemaCheck
  | CalledToolCheck
  | NotCalledToolCheck
  | MaxCreditsCheck
  | WithDefaults<JudgeCheck, 'threshold'>;

/** What `agent.evals.put(caseId, definition)` sends: the whole case (a put replaces it). */
export interface EvalCaseDefinition {
  /** 1 to 20 user messages (each 1 to 8000 characters), asked in order in one new conversation. */
  messages: string[];
  /** Values of the agent's declared parameters for that conversation (as `agent.start` takes them); default none. */
  parameters?: Record<string, string | number>;
  /** 1 to 20 checks; the case passes when every one does. */
  checks: EvalCheckInput[];
}

/** A stored evaluation case (`agent.evals.list()`, `put`). */
export interface EvalCase {
  /** The case id chosen at `put`: 1 to 64 of `a-z`, `0-9`, `_`, `-`, starting with a letter or digit. */
  id: string;
  messages: string[];
  parameters: Record<string, string | number>;
  checks: EvalCheck[];
  /** When the case was first put; kept when it is replaced. */
  createdAt: string;
  /** When the case was last put. */
  updatedAt: string;
}

/** A tool call of a case's turns, as evidence (`EvalCaseResult.toolCalls`). */
export interface EvalToolCall {
  /** The tool as events show it (`files.write`, an HTTP tool, `server.tool`). */
  tool: string;
  /** The arguments the model called it with. */
  arguments: Record<string, unknown>;
}

/** One check's outcome, in the case's order. */
export interface EvalCheckOutcome {
  kind: string;
  passed: boolean;
  /** What was found, for people: `the reply does not contain "30 days"`, `score 0.4 (threshold 0.7): …`. */
  detail: string;
}

/** `passed`: every check passed; `failed`: one did not; `error`: a turn did not answer, the case could not start, or it stopped for credits. */
export type EvalCaseStatus = 'pending' | 'passed' | 'failed' | 'error';

/** One case's result in a run. */
export interface EvalCaseResult {
  caseId: string;
  status: EvalCaseStatus;
  /** One outcome per check; empty while pending or when a turn did not answer. */
  checks: EvalCheckOutcome[];
  /** The final reply (of the last message's turn), cut to 20 000 characters; null before it exists. */
  reply: string | null;
  /** Every tool call of the case's turns, in order (the first 50). */
  toolCalls: EvalToolCall[];
  /** What the case cost: its turns and its judge checks. */
  credits: number;
  /** The case's conversation (readable like any other), once it started. */
  conversationId: string | null;
  /** Why the case is `error`. */
  error: string | null;
  /**
   * Set when the case stopped for credits (it is then `error`): `credits_exhausted`, the
   * workspace's balance did not cover a turn or a judge call; `credit_cap_reached`, the agent
   * reached its credit cap. null otherwise.
   */
  errorCode: 'credits_exhausted' | 'credit_cap_reached' | null;
}

/** Counts of a run's cases. */
export interface EvalRunSummary {
  cases: number;
  passed: number;
  failed: number;
  errored: number;
  pending: number;
  /** passed / graded cases, 0 to 1; null while nothing is graded. */
  passRate: number | null;
  /** What the run cost so far. */
  credits: number;
}

/** A run in `agent.evalRuns.list()`: without per-case evidence. */
export interface EvalRunListItem {
  /** Prefix `evr_`. */
  id: string;
  agentId: string;
  versionId: string;
  versionNumber: number;
  /** `manual` (`agent.evals.run`), or the gate of `deployToProd` for the candidate or the production version. */
  purpose: 'manual' | 'deploy_candidate' | 'deploy_baseline';
  /** `running`, then `completed` (every case graded), `cancelled` or `failed` (see `error`). */
  status: 'running' | 'completed' | 'cancelled' | 'failed';
  error: string | null;
  summary: EvalRunSummary;
  createdAt: string;
  finishedAt: string | null;
}

/** A run with each case's result (`agent.evals.run`, `agent.evalRuns.get`). */
export interface EvalRun extends EvalRunListItem {
  /** One result per case, ordered by case id. */
  cases: EvalCaseResult[];
}

/** How each case changed between two runs (`agent.evalRuns.compare(before, after)`). */
export interface EvalRunComparison {
  before: string;
  after: string;
  cases: {
    caseId: string;
    /** null: the case was not in that run. */
    before: EvalCaseStatus | null;
    after: EvalCaseStatus | null;
    /** `fixed`: passes now, did not; `broke`: passed, does not now. */
    change: 'fixed' | 'broke' | 'same' | 'added' | 'removed';
  }[];
}

/** What `deployToProd` requires of the eval runs (`agent.evals.gate()`). */
export interface EvalGate {
  /** 0 to 1: the share of cases the candidate must pass; null (default): no case that passes on production may fail. */
  passRate: number | null;
}
