import { Ajv2020 } from 'ajv/dist/2020';
import { z } from 'zod';
import { parameterValue } from './conversation';

/**
 * Evaluation cases (issue 36): per agent, a conversation to replay and checks on its result.
 * Cases are an agent setting beside the versions, like allowed origins and the credit cap: a
 * change applies at once and publishes no version, so one suite can be run against any version.
 * Runs grade them (domain/eval-runs.ts, activities/evals/).
 *
 * Defaults are filled in when a case is stored (`caseSensitive` false, `flags` "", `threshold`
 * 0.7, `parameters` {}), so a case reads back exactly as it will be graded.
 */

/** The most cases an agent may have; replacing one is always allowed. */
export const MAX_EVAL_CASES = 200;
const MAX_MESSAGES = 20;
const MAX_MESSAGE_CHARS = 8000;
const MAX_CHECKS = 20;
const MAX_TEXT_CHARS = 8000;
const MAX_PATTERN_CHARS = 500;
const MAX_RUBRIC_CHARS = 4000;
const MAX_PARAMETERS = 100;
/** JSON objects inside a check (a schema, expected tool arguments), measured as JSON text. */
const MAX_SCHEMA_JSON_CHARS = 20_000;
const MAX_ARGUMENTS_JSON_CHARS = 10_000;
const JUDGE_DEFAULT_THRESHOLD = 0.7;

/** What a case id is made of: ids put before ids were checked for what they mean are still of this form. */
const caseIdText = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'a case id: 1 to 64 lower-case letters, digits, `_` or `-`, starting with a letter or digit');

/** What a caller's bug makes of a missing value or a boolean, put where a case id belongs. */
const NOT_NAMES = new Set(['null', 'undefined', 'true', 'false']);

/**
 * `:caseId` of a put: chosen by the caller, so a suite kept in a repository can be put again
 * idempotently — and a name, not what a bug makes: not only digits (an index, `0`) and not
 * `null`, `undefined`, `true` or `false` (a value turned into text).
 */
export const evalCaseIdSchema = caseIdText
  .refine((id) => !/^[0-9]+$/.test(id), 'a case id names the case: not only digits (an index is not a name)')
  .refine((id) => !NOT_NAMES.has(id), 'a case id names the case: not null, undefined, true or false (a missing value turned into text)');

/**
 * A case id that refers to a stored case (a remove, the `cases` of a run): any id a put ever took,
 * so a case put before the check above can still be run and removed; one that is not stored is 404.
 */
export const storedEvalCaseIdSchema = caseIdText;

/** A JSON object (not an array or a scalar) whose JSON text is at most `max` characters. */
const jsonObject = (max: number) =>
  z.record(z.string(), z.unknown(), { error: 'a JSON object' }).refine((v) => JSON.stringify(v).length <= max, `at most ${max} characters as JSON`);

/** The JavaScript flags a `matches` check may use: each of `i`, `m`, `s`, `u` at most once. */
const regexFlags = z
  .string()
  .regex(/^(?!.*(.).*\1)[imsu]*$/, 'a subset of "imsu", each at most once')
  .default('');

/** Refuses a pattern that `new RegExp` does not compile (with the check's flags), naming `pattern`. */
function compiles(check: { pattern: string; flags: string }, ctx: z.core.$RefinementCtx): void {
  try {
    new RegExp(check.pattern, check.flags);
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : String(e);
    ctx.addIssue({ code: 'custom', path: ['pattern'], message: `not a valid regular expression: ${why}` });
  }
}

/** Refuses a `json_schema` check whose schema Ajv (draft 2020-12) does not compile, naming `schema`. */
function compilesAsSchema(check: { schema: Record<string, unknown> }, ctx: z.core.$RefinementCtx): void {
  try {
    new Ajv2020({ strict: false }).compile(check.schema);
  } catch (e) {
    ctx.addIssue({ code: 'custom', path: ['schema'], message: `not a JSON Schema Ajv compiles: ${e instanceof Error ? e.message : String(e)}` });
  }
}

const text = z.string().min(1).max(MAX_TEXT_CHARS);
const caseSensitive = z.boolean().default(false).describe('Default false: letters match in either case.');
const toolName = z
  .string()
  .min(1)
  .max(200)
  .describe('The tool as events show it: a catalogue name (`web.fetch`), an HTTP tool\'s name, or `<server>.<tool>` for an MCP tool.');

export const evalCheckSchema = z
  .discriminatedUnion(
    'kind',
    [
      z
        .object({ kind: z.literal('contains'), text, caseSensitive })
        .strict()
        .meta({ id: 'ContainsCheck', description: 'The final reply contains `text`.' }),
      z
        .object({ kind: z.literal('not_contains'), text, caseSensitive })
        .strict()
        .meta({ id: 'NotContainsCheck', description: 'The final reply does not contain `text`.' }),
      z
        .object({
          kind: z.literal('matches'),
          pattern: z.string().min(1).max(MAX_PATTERN_CHARS),
          flags: regexFlags,
        })
        .strict()
        .superRefine(compiles)
        .meta({
          id: 'MatchesCheck',
          description: 'The final reply matches the JavaScript regular expression `pattern` (with `flags`, default none) somewhere. It must compile.',
        }),
      z
        .object({
          kind: z.literal('json_schema'),
          schema: jsonObject(MAX_SCHEMA_JSON_CHARS).describe('A JSON Schema (draft 2020-12), at most 20 000 characters as JSON.'),
        })
        .strict()
        .superRefine(compilesAsSchema)
        .meta({ id: 'JsonSchemaCheck', description: 'The final reply is JSON that `schema` accepts.' }),
      z
        .object({
          kind: z.literal('called_tool'),
          tool: toolName,
          arguments: jsonObject(MAX_ARGUMENTS_JSON_CHARS)
            .optional()
            .describe('A subset to match: each field given must equal (recursively, for objects) the one the call was made with. Absent: any arguments.'),
        })
        .strict()
        .meta({ id: 'CalledToolCheck', description: 'The turns called `tool` at least once (with `arguments`, when given).' }),
      z
        .object({ kind: z.literal('not_called_tool'), tool: toolName })
        .strict()
        .meta({ id: 'NotCalledToolCheck', description: 'The turns never called `tool`.' }),
      z
        .object({ kind: z.literal('max_credits'), credits: z.number().finite().positive('more than 0').max(1e12) })
        .strict()
        .meta({ id: 'MaxCreditsCheck', description: "The case's turns cost at most `credits` in all." }),
      z
        .object({
          kind: z.literal('judge'),
          rubric: z.string().trim().min(1).max(MAX_RUBRIC_CHARS),
          threshold: z.number().min(0).max(1).default(JUDGE_DEFAULT_THRESHOLD).describe('0 to 1, default 0.7.'),
          grade: z.enum(['standard', 'premium']).optional().describe("The grade whose model judges; absent: the evaluated version's grade."),
        })
        .strict()
        .meta({
          id: 'JudgeCheck',
          description:
            "A model (the version's grade, or `grade`) scores the final reply against `rubric` from 0 to 1; the check passes at `threshold` or above. Its tokens are billed like a turn's.",
        }),
    ],
    { error: () => 'one of contains, not_contains, matches, json_schema, called_tool, not_called_tool, max_credits, judge' },
  )
  .meta({ id: 'EvalCheck' });

export type EvalCheck = z.output<typeof evalCheckSchema>;

const caseFields = {
  messages: z
    .array(z.string().trim().min(1).max(MAX_MESSAGE_CHARS))
    .min(1, 'at least 1 message')
    .max(MAX_MESSAGES, `at most ${MAX_MESSAGES} messages`)
    .describe('User messages, asked in order as the turns of one new conversation.'),
  parameters: z
    .record(z.string(), parameterValue)
    .refine((p) => Object.keys(p).length <= MAX_PARAMETERS, `at most ${MAX_PARAMETERS} parameters`)
    .default({})
    .describe("Values of the agent's declared parameters for that conversation, as `agent.start` takes them."),
  checks: z
    .array(evalCheckSchema)
    .min(1, 'at least 1 check')
    .max(MAX_CHECKS, `at most ${MAX_CHECKS} checks`)
    .describe('Every check must pass for the case to pass.'),
};

/** `PUT /v1/agents/:agentId/evals/:caseId`: creates the case or replaces it whole. */
export const evalCaseBodySchema = z.object(caseFields).strict().meta({ id: 'EvalCaseDefinition' });
export type EvalCaseDefinition = z.output<typeof evalCaseBodySchema>;

/** A stored case, as the API answers it. `createdAt` is kept when the case is replaced. */
export const evalCaseSchema = z
  .object({ id: z.string(), ...caseFields, createdAt: z.string(), updatedAt: z.string() })
  .strict()
  .meta({
    id: 'EvalCase',
    description: 'An evaluation case of the agent: stored beside its versions (changing it publishes none), with its defaults filled in.',
  });
export type EvalCase = z.output<typeof evalCaseSchema>;
