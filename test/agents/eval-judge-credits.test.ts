import assert from 'node:assert/strict';
import type { EvalRun } from '../../sdk/src';
import type { ScriptedResponse } from '../../harness/model-servers/scripted-server';
import { useIsolatedStack } from '../support/isolated-stack';

/** What the provider reports for each judge call: 200 000 input tokens, 200.04 credits at 1 credit per 1000. */
const HUGE_JUDGE: ScriptedResponse = { text: '{"score": 0.9, "reason": "states 30 days"}', usage: { inputTokens: 200_000, outputTokens: 40 } };
const ONE_CALL = 200.04;
/** The agent's answer to the case's one message: 0.12 credits. */
const ANSWER: ScriptedResponse = { text: 'Sorry, returns are accepted within 30 days only.', usage: { inputTokens: 100, outputTokens: 20 } };
const TURN_COST = 0.12;

/**
 * Judge calls are admitted like model steps (issue 49, item 4): before each, the workspace's
 * balance less what is held must cover its input and the agent's cap must not be reached; its
 * cost counts in the cap's `spent`; a case stopped for credits says so; a retried grading pays
 * for each call once. The agent and its judge talk to an OpenAI-wire server that reports the
 * usage the test scripts (standard grade: 1 credit per 1000 tokens).
 */
describe('eval judge calls are admitted and billed like model steps', function () {
  this.timeout(120_000);
  const stack = useIsolatedStack({ model: 'openai', worker: 'inline', env: { MODEL_PREMIUM: 'local:offline' } });
  const { api, model: server } = stack;

  async function agentWithJudges(credits: number, judges: number) {
    const { ws, workspaceId } = await stack.workspace(credits);
    const agent = await ws.agents.create({ name: 'Returns desk', instructions: 'Answer about returns.' });
    await agent.evals.put('return-window', {
      messages: ['Can I return shoes after 40 days?'],
      checks: Array.from({ length: judges }, (_, i) => ({ kind: 'judge' as const, rubric: `Says the return window is 30 days (${i + 1})`, threshold: 0.7 })),
    });
    return { ws, agent, workspaceId };
  }

  /** Runs the agent's cases with the judge answering `judge` (after the scripted answers), and counts the model calls. */
  async function run(agent: Awaited<ReturnType<typeof agentWithJudges>>['agent'], judge: ScriptedResponse, ...scripted: ScriptedResponse[]) {
    const asked = server.requests.length;
    const original = server.defaultResponse;
    server.enqueue(...scripted);
    server.defaultResponse = judge;
    try {
      const started = await agent.evals.run({ versionId: agent.versionId });
      const done = await agent.evalRuns.wait(started.id, { signal: AbortSignal.timeout(90_000) });
      return { run: done, calls: server.requests.length - asked };
    } finally {
      server.defaultResponse = original;
    }
  }

  const judgeRows = (run: EvalRun) => api.db('judge_calls').where({ eval_run_id: run.id }).orderBy('id');

  it('cap 10, five judge checks reported at 200 000 tokens: one call over at most, counted in spent, the rest not asked', async () => {
    const { ws, agent } = await agentWithJudges(1000, 5);
    const CAP = 10;
    await agent.setCreditCap(CAP);
    const before = (await ws.get()).credits;

    const { run: done, calls } = await run(agent, HUGE_JUDGE, ANSWER);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(calls, 2, 'the turn and one judge call: the other four were never asked');
    const [result] = done.cases;
    assert.equal(result?.status, 'error', JSON.stringify(result));
    assert.equal(result?.errorCode, 'credit_cap_reached');
    assert.match(result?.error ?? '', /^check 2 \(judge\) and the judge checks after it were not run: agent agt_\w+ reached its credit cap \(200\.16 of 10 credits spent\)$/);
    assert.deepEqual(result?.checks.map((c) => c.passed), [true, false, false, false, false]);
    assert.equal(result?.checks[0]?.detail, 'score 0.9 (threshold 0.7): states 30 days');
    for (const c of result?.checks.slice(1) ?? []) assert.match(c.detail, /^not run: agent agt_\w+ reached its credit cap/);

    // The cap's `spent` includes the judge call; it passed the cap by that one call, no more.
    const { spent } = await agent.creditCap();
    assert.ok(Math.abs(spent - (TURN_COST + ONE_CALL)) < 1e-6, `spent ${spent}: the turn and one judge call`);
    assert.ok(spent > CAP && spent <= CAP + ONE_CALL, `spent ${spent} ≤ cap ${CAP} + one call ${ONE_CALL}`);
    const paid = before - (await ws.get()).credits;
    assert.ok(Math.abs(paid - spent) < 1e-6 && Math.abs(paid - done.summary.credits) < 1e-6, `paid ${paid}, spent ${spent}, run ${done.summary.credits}`);

    // The cap holds for what comes next: a turn is refused at admission, and so is the next run's.
    const conversation = await agent.start();
    await assert.rejects(conversation.ask('hello?'), (e: { code?: string; message?: string }) => e.code === 'insufficient_credits' && /credit cap/.test(e.message ?? ''));
    const next = await run(agent, HUGE_JUDGE);
    assert.equal(next.calls, 0, 'nothing was asked');
    assert.deepEqual([next.run.cases[0]?.status, next.run.cases[0]?.errorCode], ['error', 'credit_cap_reached'], JSON.stringify(next.run.cases[0]));
  });

  it('without a cap, the balance stops the judge: it ends at most one call below zero, credits_exhausted', async () => {
    const { ws, agent } = await agentWithJudges(100, 5);
    const { run: done, calls } = await run(agent, HUGE_JUDGE, ANSWER);
    assert.equal(calls, 2, 'the turn and one judge call');
    const [result] = done.cases;
    assert.deepEqual([result?.status, result?.errorCode], ['error', 'credits_exhausted'], JSON.stringify(result));
    assert.match(result?.error ?? '', /the workspace has no credits left for a judge call$/);
    const balance = (await ws.get()).credits;
    assert.ok(balance < 0 && balance >= -ONE_CALL, `balance ${balance}: below zero by at most one call`);
    assert.ok(Math.abs(100 - balance - done.summary.credits) < 1e-6, `the workspace paid what the run says (${done.summary.credits})`);
  });

  it('a retried grading pays each call once: a finished call is reused, one cut short pays what it streamed', async () => {
    const { ws, agent } = await agentWithJudges(100, 2);
    const before = (await ws.get()).credits;
    const ok: ScriptedResponse = { text: '{"score": 0.8, "reason": "fine"}', usage: { inputTokens: 300, outputTokens: 40 } };
    // The second judge's first answer breaks after three words: the grading fails and is retried.
    const broken: ScriptedResponse = { text: 'Weighing the reply against the rubric now', dropAfterChunks: 4 };
    const { run: done, calls } = await run(agent, ok, ANSWER, ok, broken);
    assert.equal(done.cases[0]?.status, 'passed', JSON.stringify(done.cases[0]));
    assert.equal(done.cases[0]?.errorCode, null);
    assert.equal(calls, 4, 'the turn, the first judge once, the second twice');

    const rows = (await judgeRows(done)) as { id: string; check_index: number; final: boolean; output_tokens: number; cost: string }[];
    assert.deepEqual(
      rows.map((r) => [r.check_index, r.id.split(':').at(-1), r.final]),
      [
        [0, '1', true],
        [1, '1', false],
        [1, '2', true],
      ],
    );
    const cut = rows[1]!;
    assert.ok(cut.output_tokens > 0 && Number(cut.cost) > 0, `the cut-short call pays its input and what it streamed (${cut.output_tokens} tokens, ${cut.cost})`);
    const debits = await api.db('credit_debits').whereIn('turn_id', rows.map((r) => r.id)).orderBy('turn_id');
    assert.deepEqual(
      debits.map((d: { amount: string }) => Number(d.amount)),
      rows.map((r) => Number(r.cost)),
      'one debit per call, of what it cost',
    );
    const paid = before - (await ws.get()).credits;
    assert.ok(Math.abs(paid - done.summary.credits) < 1e-6, `paid ${paid}, the run says ${done.summary.credits}`);
    assert.ok(Math.abs(done.summary.credits - (TURN_COST + 0.34 + Number(cut.cost) + 0.34)) < 1e-6, `run ${done.summary.credits}`);
  });
});
