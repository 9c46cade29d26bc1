import assert from 'node:assert/strict';
import { evalRunWorkflowId } from '../../domain/runs/eval-run';
import { type EvalRun, Service } from '../../sdk/src';
import { waitFor } from '../support/wait';
import { useIsolatedStack } from '../support/isolated-stack';

/**
 * Eval runs as durable, billed work (issue 36): a judge check through an OpenAI-compatible server,
 * a run that outlives a worker killed with SIGKILL, and a cancelled run whose turns still pay.
 * Standard-grade agents talk to the OpenAI-wire test server; premium-grade ones to the offline
 * model, slowed so a run is still going when the test acts on it. Workers are processes of
 * their own, on queues of their own.
 */
describe('eval runs: the judge, a killed worker, a cancel', function () {
  this.timeout(180_000);
  const stack = useIsolatedStack({
    model: 'openai',
    worker: 'process',
    env: { MODEL_PREMIUM: 'local:offline', LOCAL_MODEL_DELAY_MS: '150', MODEL_HEARTBEAT_TIMEOUT_MS: '2000', MODEL_RETRY_INITIAL_MS: '100' },
  });
  const { api, model: server, workspace } = stack;

  const wait = (ws: Service, agentId: string, runId: string) => ws.agent(agentId).evalRuns.wait(runId, { signal: AbortSignal.timeout(120_000) });

  /** Debits of the run's turns, by turn: one each. */
  async function debitsOf(run: EvalRun): Promise<Map<string, number>> {
    const turns = await api.db('turns').whereIn('conversation_id', api.db('conversations').where({ eval_run_id: run.id }).select('id')).pluck('id');
    const rows = await api.db('credit_debits').whereIn('turn_id', turns).select('turn_id');
    const counts = new Map<string, number>(turns.map((t: string) => [t, 0]));
    for (const r of rows as { turn_id: string }[]) counts.set(r.turn_id, (counts.get(r.turn_id) ?? 0) + 1);
    return counts;
  }

  it('a judge check asks the grade\'s model with the rubric and the reply, passes over its threshold, and is billed', async () => {
    const { ws, workspaceId } = await workspace();
    const created = await ws.agents.create({ name: 'Returns desk', instructions: 'Answer about returns.' });
    const agent = ws.agent(created.id);
    await agent.evals.put('return-window', {
      messages: ['Can I return shoes after 40 days?'],
      checks: [{ kind: 'judge', rubric: 'Says the return window is 30 days and declines politely', threshold: 0.7 }],
    });
    const asked = server.requests.length;
    server.enqueue(
      { text: 'Sorry, returns are accepted within 30 days only.', usage: { inputTokens: 100, outputTokens: 20 } },
      { text: '{"score": 0.9, "reason": "states 30 days, polite"}', usage: { inputTokens: 300, outputTokens: 40 } },
      { text: 'Sure, send them back any time!', usage: { inputTokens: 100, outputTokens: 20 } },
      { text: 'Score: 0.2 (wrong window)', usage: { inputTokens: 300, outputTokens: 40 } },
    );
    const before = (await ws.get()).credits;
    const good = await wait(ws, agent.id, (await agent.evals.run({ versionId: created.versionId })).id);
    assert.equal(good.cases[0]!.status, 'passed', JSON.stringify(good.cases[0]));
    assert.equal(good.cases[0]!.checks[0]!.detail, 'score 0.9 (threshold 0.7): states 30 days, polite');

    // The judge saw the rubric, the user's message and the reply, and was offered no tools.
    const judged = server.requests.slice(asked)[1]!.body as { messages: { role: string; content: unknown }[]; tools?: unknown };
    const prompt = JSON.stringify(judged.messages);
    for (const part of ['Says the return window is 30 days', 'Can I return shoes after 40 days?', 'Sorry, returns are accepted within 30 days only.']) {
      assert.ok(prompt.includes(part), `the judge was shown ${part}`);
    }
    assert.equal(judged.tools, undefined);

    const bad = await wait(ws, agent.id, (await agent.evals.run({ versionId: created.versionId })).id);
    assert.equal(bad.cases[0]!.status, 'failed');
    assert.equal(bad.cases[0]!.checks[0]!.detail, 'score 0.2 (threshold 0.7)');

    // Both judge calls are debited, and each run's cost includes its judge.
    const judgeDebits = await api.db('credit_debits').where({ workspace_id: workspaceId }).whereLike('turn_id', 'judge:%');
    assert.equal(judgeDebits.length, 2);
    const spent = before - (await ws.get()).credits;
    assert.ok(Math.abs(spent - (good.summary.credits + bad.summary.credits)) < 1e-6, `spent ${spent}, runs ${good.summary.credits} + ${bad.summary.credits}`);
    assert.ok(good.summary.credits > good.cases[0]!.credits - Number(judgeDebits[0].amount) - 1e-9);
  });

  it('a run outlives a worker killed with SIGKILL mid-turn and ends once, each turn answered and debited once', async () => {
    const { ws } = await workspace();
    const created = await ws.agents.create({ name: 'Slow echo', grade: 'premium' });
    const agent = ws.agent(created.id);
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      await agent.evals.put(id, { messages: [`${id} ${words(12)}`, `again ${id}`], checks: [{ kind: 'contains', text: `You said: again ${id}` }] });
    }
    const started = await agent.evals.run({ versionId: created.versionId });
    // Kill once turns are streaming: their model steps are on the worker that dies.
    const runTurns = () => api.db('turns').whereIn('conversation_id', api.db('conversations').where({ eval_run_id: started.id }).select('id')).select('id');
    await waitFor('a turn of the run streams text', () => api.db('turn_events').whereIn('turn_id', runTurns()).where({ type: 'text' }).first(), (e) => e !== undefined);
    await stack.killWorkers();
    await stack.startWorker();

    const run = await wait(ws, agent.id, started.id);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.deepEqual(run.cases.map((c) => c.status), ['passed', 'passed', 'passed', 'passed', 'passed'], JSON.stringify(run.cases));
    const debits = await debitsOf(run);
    assert.equal(debits.size, 10, 'two turns a case');
    assert.deepEqual([...new Set(debits.values())], [1], 'each turn debited once');
    for (const c of run.cases) {
      const messages = await ws.conversation(c.conversationId!).messages();
      assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant'], `case ${c.caseId}`);
    }
    const described = await api.temporal.workflow.getHandle(evalRunWorkflowId(run.id)).describe();
    assert.equal(described.status.name, 'COMPLETED');
    const runs: string[] = [];
    for await (const w of api.temporal.workflow.list({ query: `WorkflowId = "${evalRunWorkflowId(run.id)}"` })) runs.push(w.runId);
    assert.equal(runs.length, 1, 'one execution of the run');
  });

  it('a cancelled run ends its turns in flight, each paying what it used, and leaves the rest pending', async () => {
    const { ws } = await workspace();
    const created = await ws.agents.create({ name: 'Slow echo', grade: 'premium' });
    const agent = ws.agent(created.id);
    const long = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) await agent.evals.put(id, { messages: [long], checks: [{ kind: 'contains', text: 'w199' }] });
    const started = await agent.evals.run({ versionId: created.versionId });
    await waitFor('four cases started', () => api.db('conversations').where({ eval_run_id: started.id }), (rows) => rows.length === 4);
    const asked = await agent.evalRuns.cancel(started.id);
    assert.equal(asked.id, started.id);

    const run = await wait(ws, agent.id, started.id);
    assert.equal(run.status, 'cancelled');
    const statuses = run.cases.map((c) => c.status);
    assert.deepEqual(statuses, ['pending', 'pending', 'pending', 'pending', 'pending', 'pending'], 'no case was graded');
    assert.deepEqual(run.cases.map((c) => c.conversationId !== null), [true, true, true, true, false, false], 'the started cases name their conversation');
    const turns = await api.db('turns').whereIn('conversation_id', api.db('conversations').where({ eval_run_id: run.id }).select('id'));
    assert.ok(turns.length >= 4);
    const debits = await debitsOf(run);
    for (const t of turns as { id: string; status: string; cost: string | null; writer: string | null }[]) {
      assert.equal(t.status, 'cancelled', `turn ${t.id}`);
      // A turn whose workflow never started (the cancel came between opening it and starting it)
      // consumed nothing; every other one pays what it streamed, once.
      if (t.writer === null) assert.deepEqual([Number(t.cost), debits.get(t.id)], [0, 0], `turn ${t.id} never ran`);
      else assert.deepEqual([Number(t.cost) > 0, debits.get(t.id)], [true, 1], `turn ${t.id} paid for what it streamed, once`);
    }
    // Cancelling again answers the run as it is.
    assert.equal((await agent.evalRuns.cancel(run.id)).status, 'cancelled');
  });
});
