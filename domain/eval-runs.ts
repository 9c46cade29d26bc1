/**
 * Evaluation runs (docs/evals.md): the API's schemas of runs, results, comparisons and the gate,
 * and the pure rules on them. The workflow's own declarations are in eval-run-inputs.ts (no zod).
 *
 * A run replays a snapshot of the agent's cases against one version: each case is a new
 * conversation pinned to that version whose messages are asked as ordinary turns (child
 * workflows, billed like any turn), then graded. Run status: `running`, then `completed` (every
 * case has an outcome), `cancelled`, or `failed` (the run itself could not go on; its message
 * says why). A case's status: `pending`, then `passed` (every check passed), `failed` (a check
 * failed) or `error` (a turn did not answer, the case could not start, or its credits ran out:
 * `errorCode` says when it stopped for credits).
 */
import { z } from 'zod';
import { storedEvalCaseIdSchema } from './evals';
import { versionId } from './publishing';
import { turnErrorCodeSchema } from './turn-events';
import type { EvalToolCall } from './runs/eval-run';

/** Tool calls kept as a case's evidence; the checks see them all. */
export const MAX_EVIDENCE_TOOL_CALLS = 50;
/** A reply kept as evidence is cut to this many characters (the checks see all of it). */
export const MAX_EVIDENCE_REPLY_CHARS = 20_000;

export const evalRunIdSchema = z.string().regex(/^evr_[0-9a-z]{1,60}$/, 'an eval run id (evr_…)');

const toolCallEvidence: z.ZodType<EvalToolCall> = z
  .object({
    tool: z.string().describe('The tool as events show it (`files.write`, an HTTP tool, `server.tool`).'),
    arguments: z.record(z.string(), z.unknown()).describe('The arguments the model called it with.'),
  })
  .strict()
  .meta({ id: 'EvalToolCall' });

const checkOutcome = z
  .object({
    kind: z.string().describe("The check's kind, as the case defines it (checks keep the case's order)."),
    passed: z.boolean(),
    detail: z.string().describe('What was found, for people: e.g. `the reply does not contain "30 days"`, `score 0.4 (threshold 0.7): …`.'),
  })
  .strict()
  .meta({ id: 'EvalCheckOutcome' });
export type EvalCheckOutcome = z.infer<typeof checkOutcome>;

export const evalCaseResultSchema = z
  .object({
    caseId: z.string(),
    status: z.enum(['pending', 'passed', 'failed', 'error']),
    checks: z.array(checkOutcome).describe('One outcome per check, in the case\'s order; empty while pending or when a turn did not answer.'),
    reply: z.string().nullable().describe('The final reply (of the last message), cut to 20 000 characters; null before it exists.'),
    toolCalls: z.array(toolCallEvidence).describe('Every tool call of the case\'s turns, in order (the first 50).'),
    credits: z.number().describe('What the case cost: its turns and its judge checks.'),
    conversationId: z.string().nullable().describe("The case's conversation (readable like any other), once it started."),
    error: z.string().nullable().describe('Why the case is `error`.'),
    errorCode: turnErrorCodeSchema
      .nullable()
      .describe(
        'Set when the case stopped for credits (it is then `error`): `credits_exhausted`, the workspace\'s balance did not cover a turn or a judge call; `credit_cap_reached`, the agent reached its credit cap. null otherwise.',
      ),
  })
  .strict()
  .meta({ id: 'EvalCaseResult' });
export type EvalCaseResult = z.infer<typeof evalCaseResultSchema>;

const summary = z
  .object({
    cases: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    errored: z.number().int(),
    pending: z.number().int(),
    passRate: z.number().nullable().describe('passed / (cases − pending), 0 to 1; null while nothing is graded.'),
    credits: z.number().describe('What the run cost so far: every case\'s turns and judge checks.'),
  })
  .strict()
  .meta({ id: 'EvalRunSummary' });

const runFields = {
  id: z.string(),
  agentId: z.string(),
  versionId: z.string(),
  versionNumber: z.number().int(),
  purpose: z.enum(['manual', 'deploy_candidate', 'deploy_baseline']),
  status: z.enum(['running', 'completed', 'cancelled', 'failed']),
  error: z.string().nullable().describe('Why the run is `failed`.'),
  summary,
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
};

export const evalRunSchema = z
  .object({ ...runFields, cases: z.array(evalCaseResultSchema).describe('One result per case of the run, ordered by case id.') })
  .strict()
  .meta({ id: 'EvalRun', description: 'A run of the agent\'s evaluation cases against one version.' });
export type EvalRun = z.infer<typeof evalRunSchema>;

/** A run in a list: without the per-case evidence (`GET …/eval-runs/:runId` has it). */
export const evalRunListItemSchema = z.object(runFields).strict().meta({ id: 'EvalRunListItem' });
export type EvalRunListItem = z.infer<typeof evalRunListItemSchema>;

export const evalRunStartSchema = z
  .object({
    versionId: versionId.describe('The version to evaluate (ver_…): any version of the agent, deployed or not.'),
    cases: z
      .array(storedEvalCaseIdSchema)
      .min(1)
      .max(200)
      .optional()
      .describe('Case ids to run; absent: every case of the agent.'),
  })
  .strict()
  .meta({ id: 'EvalRunStart' });

/** How a case changed between two runs (`compare`): by status, `before` the first run's, `after` the second's. */
export const evalComparisonSchema = z
  .object({
    before: z.string().describe('The first run (the baseline).'),
    after: z.string().describe('The second run.'),
    cases: z.array(
      z
        .object({
          caseId: z.string(),
          before: z.enum(['pending', 'passed', 'failed', 'error']).nullable().describe('null: the case was not in that run.'),
          after: z.enum(['pending', 'passed', 'failed', 'error']).nullable(),
          change: z.enum(['fixed', 'broke', 'same', 'added', 'removed']).describe('`fixed`: now passes, did not; `broke`: passed, now does not.'),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({ id: 'EvalRunComparison' });
export type EvalComparison = z.infer<typeof evalComparisonSchema>;

/** `PUT /v1/agents/:agentId/eval-gate`: the pass rate `deployToProd` requires. */
export const evalGateSchema = z
  .object({
    passRate: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('0 to 1: the share of cases the candidate must pass. null (default): every case that passes on the production version must pass on the candidate.'),
  })
  .strict()
  .meta({ id: 'EvalGate' });
export type EvalGate = z.infer<typeof evalGateSchema>;

/** Counts of a run's results. */
export function summarize(cases: Pick<EvalCaseResult, 'status' | 'credits'>[]): z.infer<typeof summary> {
  const count = (s: EvalCaseResult['status']) => cases.filter((c) => c.status === s).length;
  const pending = count('pending');
  const passed = count('passed');
  const graded = cases.length - pending;
  return {
    cases: cases.length,
    passed,
    failed: count('failed'),
    errored: count('error'),
    pending,
    passRate: graded === 0 ? null : passed / graded,
    credits: Math.round(cases.reduce((n, c) => n + c.credits, 0) * 1e6) / 1e6,
  };
}

/** Which cases changed between two runs, ordered by case id. */
export function compareRuns(before: { id: string; cases: EvalCaseResult[] }, after: { id: string; cases: EvalCaseResult[] }): EvalComparison {
  const a = new Map(before.cases.map((c) => [c.caseId, c.status]));
  const b = new Map(after.cases.map((c) => [c.caseId, c.status]));
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort();
  return {
    before: before.id,
    after: after.id,
    cases: ids.map((caseId) => {
      const x = a.get(caseId) ?? null;
      const y = b.get(caseId) ?? null;
      const change = x === null ? 'added' : y === null ? 'removed' : x !== 'passed' && y === 'passed' ? 'fixed' : x === 'passed' && y !== 'passed' ? 'broke' : 'same';
      return { caseId, before: x, after: y, change };
    }),
  };
}
