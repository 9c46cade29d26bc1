import assert from 'node:assert/strict';
import { gateProblems } from '../../activities/eval-gate';
import { argumentsMatch, CHECK_TIME_LIMIT_MS, runCheck, type CaseEvidence } from '../../activities/evals/checks';
import { parseJudgeAnswer } from '../../activities/evals/judge';
import { type EvalCaseResult, type EvalRun, summarize } from '../../domain/eval-runs';
import { evalCheckSchema } from '../../domain/evals';

const evidence = (reply: string, extra: Partial<CaseEvidence> = {}): CaseEvidence => ({ reply, toolCalls: [], credits: 0, ...extra });
/** A check as a stored case has it: parsed, defaults filled in. */
const check = (input: Record<string, unknown>) => {
  const parsed = evalCheckSchema.parse(input);
  if (parsed.kind === 'judge') throw new Error('judge checks need a model');
  return parsed;
};
const passes = (input: Record<string, unknown>, e: CaseEvidence) => runCheck(check(input), e).passed;

describe('eval checks', () => {
  it('contains and not_contains ignore case unless told not to', () => {
    assert.equal(passes({ kind: 'contains', text: 'thirty DAYS' }, evidence('Returns within Thirty days.')), true);
    assert.equal(passes({ kind: 'contains', text: 'thirty DAYS', caseSensitive: true }, evidence('Returns within Thirty days.')), false);
    assert.equal(passes({ kind: 'not_contains', text: 'SORRY' }, evidence('sorry, no')), false);
    assert.deepEqual(runCheck(check({ kind: 'not_contains', text: 'refund' }), evidence('no')), {
      kind: 'not_contains',
      passed: true,
      detail: 'the reply does not contain "refund"',
    });
  });

  it('matches uses the flags, and a pattern that backtracks without end fails within the time limit', () => {
    assert.equal(passes({ kind: 'matches', pattern: '^order\\s+\\d+$', flags: 'im' }, evidence('Hi\nORDER 42\nbye')), true);
    assert.equal(passes({ kind: 'matches', pattern: '^order\\s+\\d+$' }, evidence('Hi\nORDER 42\nbye')), false);
    const started = Date.now();
    const outcome = runCheck(check({ kind: 'matches', pattern: '(a+)+$' }), evidence(`${'a'.repeat(40)}!`));
    assert.equal(outcome.passed, false);
    assert.match(outcome.detail, /ran longer than 250 ms/);
    assert.ok(Date.now() - started < CHECK_TIME_LIMIT_MS + 1000, `took ${Date.now() - started} ms`);
  });

  it('json_schema reads bare or fenced JSON and says why the schema refuses it', () => {
    const schema = { type: 'object', required: ['status'], properties: { status: { enum: ['open', 'closed'] } } };
    assert.equal(passes({ kind: 'json_schema', schema }, evidence('{"status":"open"}')), true);
    assert.equal(passes({ kind: 'json_schema', schema }, evidence('```json\n{"status":"closed"}\n```')), true);
    const refused = runCheck(check({ kind: 'json_schema', schema }), evidence('{"status":"lost"}'));
    assert.equal(refused.passed, false);
    assert.match(refused.detail, /the schema refuses the reply: reply\/status must be equal to one of the allowed values/);
    assert.equal(runCheck(check({ kind: 'json_schema', schema }), evidence('Sure! {"status":')).detail, 'the reply is not JSON');
    const slow = runCheck(check({ kind: 'json_schema', schema: { type: 'string', pattern: '^(a+)+$' } }), evidence(JSON.stringify(`${'a'.repeat(40)}!`)));
    assert.deepEqual([slow.passed, slow.detail], [false, 'checking the schema took longer than 250 ms']);
    // Refused when the case is put; a case stored before that rule still grades, as a failure that says why.
    assert.match(runCheck({ kind: 'json_schema', schema: { type: 'nope' } }, evidence('{}')).detail, /^the schema does not compile/);
  });

  it('called_tool matches a subset of the arguments, recursively; arrays and scalars must be equal', () => {
    const calls = evidence('', { toolCalls: [{ tool: 'crm.lookup', arguments: { id: '42', filter: { status: 'open', limit: 5 }, tags: ['a', 'b'] } }] });
    assert.equal(passes({ kind: 'called_tool', tool: 'crm.lookup' }, calls), true);
    assert.equal(passes({ kind: 'called_tool', tool: 'crm.lookup', arguments: { filter: { status: 'open' } } }, calls), true);
    assert.equal(passes({ kind: 'called_tool', tool: 'crm.lookup', arguments: { filter: { status: 'closed' } } }, calls), false);
    assert.equal(passes({ kind: 'called_tool', tool: 'crm.lookup', arguments: { tags: ['a'] } }, calls), false);
    assert.equal(passes({ kind: 'called_tool', tool: 'crm.lookup', arguments: { id: 42 } }, calls), false, '"42" is not 42');
    assert.equal(argumentsMatch({ a: null }, { a: null }), true);
    assert.equal(argumentsMatch({ a: {} }, { a: [] }), false);
    assert.match(runCheck(check({ kind: 'called_tool', tool: 'web.fetch' }), calls).detail, /web\.fetch was not called \(called: crm\.lookup\)/);
    assert.equal(passes({ kind: 'not_called_tool', tool: 'crm.lookup' }, calls), false);
    assert.equal(passes({ kind: 'not_called_tool', tool: 'web.fetch' }, calls), true);
  });

  it('max_credits compares what the turns cost', () => {
    assert.equal(passes({ kind: 'max_credits', credits: 0.5 }, evidence('', { credits: 0.5 })), true);
    assert.equal(passes({ kind: 'max_credits', credits: 0.5 }, evidence('', { credits: 0.51 })), false);
  });

  it("a judge's answer: its JSON score, or a score in looser text; none outside 0..1", () => {
    assert.deepEqual(parseJudgeAnswer('{"score": 0.8, "reason": "polite"}'), { score: 0.8, reason: 'polite' });
    assert.deepEqual(parseJudgeAnswer('Here you go:\n```json\n{"score":"1","reason":"ok"}\n```'), { score: 1, reason: 'ok' });
    assert.deepEqual(parseJudgeAnswer('Score: 0.25 — too long'), { score: 0.25, reason: '' });
    assert.equal(parseJudgeAnswer('{"score": 7}'), undefined);
    assert.equal(parseJudgeAnswer('I cannot grade this.'), undefined);
  });
});

describe('the eval gate rule', () => {
  const result = (caseId: string, status: EvalCaseResult['status']): EvalCaseResult => ({
    caseId,
    status,
    checks: status === 'failed' ? [{ kind: 'contains', passed: false, detail: 'the reply does not contain "x"' }] : [],
    reply: '',
    toolCalls: [],
    credits: 0,
    conversationId: null,
    error: status === 'error' ? 'turn trn_1 ended with an error: boom' : null,
    errorCode: null,
  });
  const run = (id: string, versionNumber: number, cases: EvalCaseResult[], status: EvalRun['status'] = 'completed'): EvalRun => ({
    id,
    agentId: 'agt_1',
    versionId: `ver_${versionNumber}`,
    versionNumber,
    purpose: 'deploy_candidate',
    status,
    error: null,
    summary: summarize(cases),
    createdAt: '',
    finishedAt: null,
    cases,
  });

  it('by default, only a case that passes on production and fails on the candidate refuses', () => {
    const baseline = run('evr_b', 1, [result('a', 'passed'), result('b', 'failed'), result('c', 'passed')]);
    assert.deepEqual(gateProblems(run('evr_c', 2, [result('a', 'passed'), result('b', 'failed'), result('c', 'passed')]), baseline, null), []);
    const problems = gateProblems(run('evr_c', 2, [result('a', 'passed'), result('b', 'failed'), result('c', 'error')]), baseline, null);
    assert.deepEqual(problems, [
      'evals: cases that pass on production version 1 fail on version 2 (eval run evr_c): c (turn trn_1 ended with an error: boom)',
    ]);
  });

  it('before the first deploy every case must pass; a pass rate replaces both rules', () => {
    const candidate = run('evr_c', 1, [result('a', 'passed'), result('b', 'failed'), result('c', 'passed')]);
    assert.deepEqual(gateProblems(candidate, undefined, null), [
      'evals: every case must pass before the first deploy (eval run evr_c); failing: b (the reply does not contain "x")',
    ]);
    assert.deepEqual(gateProblems(candidate, undefined, 0.6), []);
    assert.deepEqual(gateProblems(candidate, undefined, 0.7), ['evals: 67 % of the cases passed, the agent requires 70 % (eval run evr_c); failing: b (the reply does not contain "x")']);
  });

  it('a run that did not complete refuses', () => {
    assert.deepEqual(gateProblems(run('evr_c', 2, [result('a', 'pending')], 'cancelled'), undefined, 0), ['the eval run evr_c of the candidate ended cancelled']);
  });
});
