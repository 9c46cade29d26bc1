import { runInContext, createContext } from 'node:vm';
import { Ajv2020 } from 'ajv/dist/2020';
import type { EvalCheck } from '../../domain/evals';
import type { EvalToolCall } from '../../domain/runs/eval-run';
import type { EvalCheckOutcome } from '../../domain/eval-runs';

/**
 * The checks an eval case makes on its result, except `judge` (a model call: judge.ts). Pure but
 * for a time limit: a `matches` pattern or a `json_schema`'s `pattern` is the builder's regular
 * expression run on the model's text, and a backtracking one (`(a+)+$`) could hold the worker's
 * event loop for minutes. Each runs under node:vm's watchdog, which interrupts the isolate after
 * `CHECK_TIME_LIMIT_MS` whatever code is running; the check then fails and says so.
 */
export const CHECK_TIME_LIMIT_MS = 250;

/** What a case produced, as the checks see it. */
export interface CaseEvidence {
  reply: string;
  toolCalls: EvalToolCall[];
  /** What the case's turns cost. */
  credits: number;
}

type DeterministicCheck = Exclude<EvalCheck, { kind: 'judge' }>;

const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

/** Runs `fn` under the watchdog; `timedOut` when it ran past the limit. */
function limited<T>(fn: () => T): { value: T } | { timedOut: true } {
  const box: { value?: T } = {};
  try {
    runInContext('run()', createContext({ run: () => (box.value = fn()) }), { timeout: CHECK_TIME_LIMIT_MS });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { timedOut: true };
    throw err;
  }
  return { value: box.value as T };
}

/** Recursively: every field of `expected` is in `actual` with an equal value (objects: again a subset). */
export function argumentsMatch(expected: unknown, actual: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    return Object.entries(expected as Record<string, unknown>).every(([k, v]) => Object.hasOwn(a, k) && argumentsMatch(v, a[k]));
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((v, i) => argumentsMatch(v, actual[i]));
  }
  return Object.is(expected, actual) || expected === actual;
}

/** The reply as JSON: as it is, or inside one Markdown code fence (how models often answer). */
function parseJsonReply(reply: string): { value: unknown } | undefined {
  const trimmed = reply.trim();
  const fenced = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  try {
    return { value: JSON.parse(fenced ? fenced[1]! : trimmed) as unknown };
  } catch {
    return undefined;
  }
}

function containsCheck(reply: string, text: string, caseSensitive: boolean): boolean {
  return caseSensitive ? reply.includes(text) : reply.toLowerCase().includes(text.toLowerCase());
}

function jsonSchemaCheck(reply: string, schema: Record<string, unknown>): EvalCheckOutcome {
  const parsed = parseJsonReply(reply);
  if (!parsed) return { kind: 'json_schema', passed: false, detail: 'the reply is not JSON' };
  const ajv = new Ajv2020({ allErrors: false, strict: false });
  let verdict: ReturnType<typeof limited<{ ok: boolean; why: string }>>;
  try {
    verdict = limited(() => {
      const validate = ajv.compile(schema);
      const ok = validate(parsed.value);
      return { ok, why: ok ? '' : ajv.errorsText(validate.errors, { dataVar: 'reply' }) };
    });
  } catch (err) {
    return { kind: 'json_schema', passed: false, detail: `the schema does not compile: ${err instanceof Error ? err.message : String(err)}` };
  }
  if ('timedOut' in verdict) return { kind: 'json_schema', passed: false, detail: `checking the schema took longer than ${CHECK_TIME_LIMIT_MS} ms` };
  return { kind: 'json_schema', passed: verdict.value.ok, detail: verdict.value.ok ? 'the reply is JSON the schema accepts' : `the schema refuses the reply: ${verdict.value.why}` };
}

/** The outcome of one check that needs no model. */
export function runCheck(check: DeterministicCheck, evidence: CaseEvidence): EvalCheckOutcome {
  const { reply, toolCalls } = evidence;
  switch (check.kind) {
    case 'contains': {
      const passed = containsCheck(reply, check.text, check.caseSensitive);
      return { kind: check.kind, passed, detail: `the reply ${passed ? 'contains' : 'does not contain'} ${quote(check.text)}` };
    }
    case 'not_contains': {
      const found = containsCheck(reply, check.text, check.caseSensitive);
      return { kind: check.kind, passed: !found, detail: `the reply ${found ? 'contains' : 'does not contain'} ${quote(check.text)}` };
    }
    case 'matches': {
      const result = limited(() => new RegExp(check.pattern, check.flags).test(reply));
      if ('timedOut' in result) {
        return { kind: check.kind, passed: false, detail: `the pattern ran longer than ${CHECK_TIME_LIMIT_MS} ms on the reply (a pattern that backtracks without end?)` };
      }
      return { kind: check.kind, passed: result.value, detail: `the reply ${result.value ? 'matches' : 'does not match'} /${check.pattern}/${check.flags}` };
    }
    case 'json_schema':
      return jsonSchemaCheck(reply, check.schema);
    case 'called_tool': {
      const calls = toolCalls.filter((c) => c.tool === check.tool);
      const passed = calls.some((c) => check.arguments === undefined || argumentsMatch(check.arguments, c.arguments));
      const detail =
        calls.length === 0
          ? `${check.tool} was not called${toolCalls.length > 0 ? ` (called: ${[...new Set(toolCalls.map((c) => c.tool))].join(', ')})` : ''}`
          : passed
            ? `${check.tool} was called${check.arguments ? ' with matching arguments' : ''}`
            : `${check.tool} was called ${calls.length} time(s), never with matching arguments (first: ${JSON.stringify(calls[0]!.arguments).slice(0, 200)})`;
      return { kind: check.kind, passed, detail };
    }
    case 'not_called_tool': {
      const n = toolCalls.filter((c) => c.tool === check.tool).length;
      return { kind: check.kind, passed: n === 0, detail: n === 0 ? `${check.tool} was not called` : `${check.tool} was called ${n} time(s)` };
    }
    case 'max_credits': {
      const passed = evidence.credits <= check.credits;
      return { kind: check.kind, passed, detail: `the turns cost ${evidence.credits} credits (at most ${check.credits})` };
    }
  }
}
