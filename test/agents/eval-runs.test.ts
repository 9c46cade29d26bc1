import assert from 'node:assert/strict';
import type { AgentHandle, EvalRun, WorkspaceClient } from '../../sdk/src';
import { EVAL_DENIAL_NOTE } from '../../activities/approvals';
import { EvalRunIdKey } from '../../domain/runs/search-attributes';
import { createLogger } from '../../infra/logger';
import { useTestApi } from '../support/api';
import { refundTool, startRefunds } from '../support/refunds';
import { expectFailure, newSdkWorkspace } from '../support/sdk';

/**
 * Evaluation runs and the eval gate of `deployToProd` (issue 36), with the real worker, Temporal
 * and PostgreSQL. The agent talks to the offline model, which echoes the user ("(offline model)
 * You said: hello") and calls a tool for a `/tool <name> <json>` line, so a case's outcome
 * depends on the version: v2 drops `files.write`, and the case that expects that call breaks.
 */
describe('eval runs and the eval gate', function () {
  this.timeout(120_000);
  const api = useTestApi(() => ({ logger: createLogger('error') }));

  async function suite(): Promise<{ ws: WorkspaceClient; agent: AgentHandle; v1: string; workspaceId: string }> {
    const { ws, workspaceId } = await newSdkWorkspace(api);
    const created = await ws.agents.create({ name: 'Note taker', role: 'freelancer', filesystem: 'drive', tools: ['files.write'] });
    const agent = ws.agent(created.id);
    await agent.evals.put('greets', { messages: ['hello'], checks: [{ kind: 'contains', text: 'you said: HELLO' }] });
    await agent.evals.put('writes-notes', {
      messages: ['/tool files_write {"path":"notes.md","content":"hi"}'],
      checks: [
        { kind: 'called_tool', tool: 'files.write', arguments: { path: 'notes.md' } },
        { kind: 'not_called_tool', tool: 'web.fetch' },
      ],
    });
    await agent.evals.put('two-turns', {
      messages: ['first', 'second'],
      checks: [
        { kind: 'matches', pattern: 'said: second$' },
        { kind: 'not_contains', text: 'first' },
        { kind: 'max_credits', credits: 5 },
      ],
    });
    return { ws, agent, v1: created.versionId, workspaceId };
  }

  const statuses = (run: EvalRun) => Object.fromEntries(run.cases.map((c) => [c.caseId, c.status]));

  it('a run of three cases passes on v1 with its evidence, is billed, and its conversations stay out of the list', async () => {
    const { ws, agent, v1, workspaceId } = await suite();
    const before = (await ws.get()).credits;
    const started = await agent.evals.run({ versionId: v1 });
    assert.equal(started.status, 'running');
    assert.deepEqual(statuses(started), { greets: 'pending', 'two-turns': 'pending', 'writes-notes': 'pending' });

    const run = await agent.evalRuns.wait(started.id, { signal: AbortSignal.timeout(60_000) });
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.deepEqual(statuses(run), { greets: 'passed', 'two-turns': 'passed', 'writes-notes': 'passed' }, JSON.stringify(run.cases));
    assert.deepEqual(run.summary, { ...run.summary, cases: 3, passed: 3, failed: 0, errored: 0, pending: 0, passRate: 1 });
    const notes = run.cases.find((c) => c.caseId === 'writes-notes')!;
    assert.deepEqual(notes.toolCalls, [{ tool: 'files.write', arguments: { path: 'notes.md', content: 'hi' } }]);
    assert.deepEqual(notes.checks.map((c) => c.detail), ['files.write was called with matching arguments', 'web.fetch was not called']);
    const two = run.cases.find((c) => c.caseId === 'two-turns')!;
    assert.equal(two.reply, '(offline model) You said: second');

    // Each case's turns are ordinary turns: billed, and the run's cost is theirs.
    assert.ok(run.summary.credits > 0, 'the run cost something');
    const spent = before - (await ws.get()).credits;
    assert.ok(Math.abs(spent - run.summary.credits) < 1e-6, `the workspace paid ${spent}, the run says ${run.summary.credits}`);

    // The case's conversation is readable, and not in the agent's list.
    const conversation = await ws.conversation(two.conversationId!).get();
    assert.equal(conversation.id, two.conversationId);
    assert.deepEqual(await agent.conversations(), [], 'eval conversations are the run\'s, not the agent\'s list');

    // Findable in Temporal by EvalRunId: the run and its four turns.
    const found: string[] = [];
    for await (const w of api.temporal.workflow.list({ query: `EvalRunId = "${run.id}"` })) found.push(w.type);
    assert.deepEqual(found.sort(), ['evalRunWorkflow', 'turnWorkflow', 'turnWorkflow', 'turnWorkflow', 'turnWorkflow'], `workspace ${workspaceId}`);
    assert.ok(EvalRunIdKey.name === 'EvalRunId');
  });

  it('deployToProd refuses a version that breaks a case, naming it, while v1 keeps serving; skipEvals promotes and is recorded', async () => {
    const { ws, agent, v1 } = await suite();
    const first = await ws.agents.deployToProd(v1);
    assert.equal(first.versionNumber, 1);
    const v2 = await agent.update({ tools: [] });

    const refused = await expectFailure(ws.agents.deployToProd(v2.versionId), 409, 'deploy_check_failed');
    // The check that refused is named: the gate, not the health check it passed.
    assert.match(refused.message, /^the version passed its health check but failed its eval gate; production is unchanged: /);
    assert.doesNotMatch(refused.message, /failed its health check/);
    assert.match(refused.message, /cases that pass on production version 1 fail on version 2/);
    assert.match(refused.message, /writes-notes \(files\.write was not called\)/);
    assert.doesNotMatch(refused.message, /greets|two-turns/, 'only the broken case is named');
    let versions = await ws.agents.versions(agent.id);
    assert.deepEqual(versions.map((v) => [v.number, v.isProd]), [[2, false], [1, true]], 'v1 keeps serving');
    const gate = versions[0]!.evals!;
    assert.ok(refused.message.includes(`(eval run ${gate.runId})`), 'the message names the eval run');
    assert.equal(gate.passed, false);
    assert.equal(gate.required, 'no_regression');

    // The gate's runs are the agent's runs: the candidate's and production's.
    const runs = await agent.evalRuns.list();
    const candidate = runs.find((r) => r.id === gate.runId)!;
    assert.deepEqual([candidate.purpose, candidate.versionNumber, candidate.summary.passed], ['deploy_candidate', 2, 2]);
    const baseline = runs.find((r) => r.id === gate.baselineRunId)!;
    assert.deepEqual([baseline.purpose, baseline.versionNumber, baseline.summary.passed], ['deploy_baseline', 1, 3]);
    const diff = await agent.evalRuns.compare(baseline.id, candidate.id);
    assert.deepEqual(diff.cases.filter((c) => c.change !== 'same'), [{ caseId: 'writes-notes', before: 'passed', after: 'failed', change: 'broke' }]);

    const forced = await ws.agents.deployToProd(v2.versionId, { skipEvals: true });
    assert.equal(forced.versionNumber, 2);
    versions = await ws.agents.versions(agent.id);
    assert.deepEqual(versions.map((v) => [v.number, v.isProd]), [[2, true], [1, false]]);
    assert.deepEqual(versions[0]!.evals, { skipped: true, runId: null, baselineRunId: null, passRate: null, required: null, passed: true });
  });

  it('with a pass rate set, the candidate needs that share of cases; the first deploy needs every case', async () => {
    const { ws, agent } = await suite();
    const broken = await agent.update({ tools: [] });
    // No production version: every case must pass, and one does not.
    const first = await expectFailure(ws.agents.deployToProd(broken.versionId), 409, 'deploy_check_failed');
    assert.match(first.message, /every case must pass before the first deploy/);
    assert.deepEqual(await agent.evals.setGate({ passRate: 0.6 }), { passRate: 0.6 });
    assert.deepEqual(await agent.evals.gate(), { passRate: 0.6 });
    const promoted = await ws.agents.deployToProd(broken.versionId);
    assert.equal(promoted.versionNumber, 2, '2 of 3 cases is over 60 %');
    const [v] = await ws.agents.versions(agent.id);
    assert.deepEqual([v!.evals?.required, v!.evals?.passed, v!.evals?.baselineRunId], [0.6, true, null]);
  });

  it('a call that needs approval is denied at once in a case: the run never waits, the model is told, nothing is called', async () => {
    const refunds = await startRefunds();
    try {
      const { ws } = await newSdkWorkspace(api);
      const created = await ws.agents.create({ name: 'Refunds', httpTools: [refundTool(refunds.url)] });
      const agent = ws.agent(created.id);
      await agent.evals.put('asks-for-refund', {
        messages: ['/tool refund {"orderId":"42","amount":10}'],
        checks: [
          { kind: 'called_tool', tool: 'refund', arguments: { orderId: '42' } },
          { kind: 'contains', text: EVAL_DENIAL_NOTE },
        ],
      });
      const run = await agent.evalRuns.wait((await agent.evals.run({ versionId: created.versionId })).id, { signal: AbortSignal.timeout(30_000) });
      assert.equal(run.cases[0]!.status, 'passed', JSON.stringify(run.cases[0]));
      assert.deepEqual(refunds.seen, [], 'the refund endpoint was never called');
      const [approval] = await ws.approvals.list({ turnId: (await api.db('turns').where({ conversation_id: run.cases[0]!.conversationId }).first('id')).id });
      assert.deepEqual([approval?.status, approval?.note], ['denied', EVAL_DENIAL_NOTE]);
    } finally {
      await refunds.close();
    }
  });

  it('refuses what cannot run: another agent\'s version, unknown cases, an agent without cases, another workspace\'s run', async () => {
    const { ws, agent, v1 } = await suite();
    const other = await ws.agents.create({ name: 'Other' });
    await expectFailure(agent.evals.run({ versionId: other.versionId }), 404, 'version_not_found');
    await expectFailure(ws.agent(other.id).evals.run({ versionId: other.versionId }), 409, 'no_eval_cases');
    const notAVersion = await expectFailure(agent.evals.run({ versionId: agent.id }), 400, 'invalid_request');
    assert.match(notAVersion.message, /^body\.versionId: a version id \(ver_…\), not a version number or an agent id/);
    assert.match((await expectFailure(agent.evals.run({ versionId: v1, cases: ['Greets'] }), 400, 'invalid_request')).message, /^body\.cases\[0\]: a case id/);
    assert.deepEqual(await agent.evalRuns.list(), [], 'nothing was started');
    const unknown = await expectFailure(agent.evals.run({ versionId: v1, cases: ['greets', 'nope'] }), 404, 'eval_case_not_found');
    assert.match(unknown.message, /nope/);
    const one = await agent.evals.run({ versionId: v1, cases: ['greets'] });
    assert.deepEqual(one.cases.map((c) => c.caseId), ['greets']);
    const stranger = await newSdkWorkspace(api);
    await expectFailure(stranger.ws.agent(agent.id).evalRuns.get(one.id), 404, 'eval_run_not_found');
    await agent.evalRuns.wait(one.id, { signal: AbortSignal.timeout(60_000) });
  });
});
