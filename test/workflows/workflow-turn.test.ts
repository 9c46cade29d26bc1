import assert from 'node:assert/strict';
import { ApplicationFailure, type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomToken } from '../../domain/ids';
import { createLogger } from '../../infra/logger';
import { installTemporalRuntime } from '../../infra/temporal-runtime';
import { bundleWorkflows } from '../../workers/worker';
import type { TurnInput, TurnLimits } from '../../domain/runs/turn';
import { turnWorkflow } from '../../workflows/turn';
import { type FakeTurnScript, fakeTurnActivities, modelAnswer } from '../support/fake-turn-activities';
import { fixture } from '../support/fixture';

/** Short retries so that retried paths take milliseconds; the step limit is small enough to reach. */
const limits: TurnLimits = { maxSteps: 3, modelMaxAttempts: 3, heartbeatTimeoutMs: 10_000, modelRetryInitialMs: 10 };

const toolCall = (n: number) => ({ id: `call_${n}`, name: 'lookup', args: { n } });

/** How an activity's last attempt failed, as the workflow history records it. */
interface FailedActivity {
  activity: string;
  attempt: number;
  type: string;
  message: string;
  nonRetryable: boolean;
  retryState: string;
}

async function failedActivities(handle: WorkflowHandle): Promise<FailedActivity[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  const names = new Map<string, string>();
  const attempts = new Map<string, number>();
  const failed: FailedActivity[] = [];
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) names.set(String(e.eventId), scheduled.activityType?.name ?? '');
    const started = e.activityTaskStartedEventAttributes;
    if (started) attempts.set(String(started.scheduledEventId), started.attempt ?? 0);
    const f = e.activityTaskFailedEventAttributes;
    if (f) {
      const id = String(f.scheduledEventId);
      failed.push({
        activity: names.get(id) ?? '?',
        attempt: attempts.get(id) ?? 0,
        type: f.failure?.applicationFailureInfo?.type ?? '',
        message: f.failure?.message ?? '',
        nonRetryable: Boolean(f.failure?.applicationFailureInfo?.nonRetryable),
        retryState: temporal.api.enums.v1.RetryState[f.retryState ?? 0] ?? '',
      });
    }
  }
  return failed;
}

/**
 * The real turn workflow (the bundle the workers run) on a Temporal dev server of its own, with
 * typed fake activities: paths a real model cannot be made to take on demand. Each test runs its
 * own worker on its own task queue.
 */
describe('turn workflow with fake activities: step limit, model failures, failTurn, agent gone', () => {
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;

  before(async function () {
    this.timeout(120_000);
    installTemporalRuntime(createLogger('silent'));
    [env, workflowBundle] = await Promise.all([
      // The time-skipping server is a download this machine cannot make: a local dev server, real time.
      TestWorkflowEnvironment.createLocal({
        server: { executable: { type: 'existing-path', path: fixture().temporalCliPath }, extraArgs: ['--output', 'none'] },
      }),
      bundleWorkflows(),
    ]);
  });
  after(() => env?.teardown());

  async function runTurn(script: FakeTurnScript, overrides: Partial<TurnLimits> = {}) {
    const fakes = fakeTurnActivities(script);
    const taskQueue = `turn-test-${randomToken(8)}`;
    const worker = await Worker.create({ connection: env.nativeConnection, namespace: 'default', taskQueue, workflowBundle, activities: fakes.activities });
    const input: TurnInput = { turnId: `trn_${randomToken(12)}`, limits: { ...limits, ...overrides } };
    const handle = await env.client.workflow.start(turnWorkflow, {
      taskQueue,
      workflowId: `turn-${input.turnId}`,
      args: [input],
      workflowExecutionTimeout: '30 seconds',
    });
    const error = await worker.runUntil(handle.result().then(() => undefined, (e: unknown) => e));
    return { ...fakes, turnId: input.turnId, handle, error };
  }

  it('a tool call then a final answer: one finishTurn with the whole reply and the summed usage, no failTurn', async () => {
    const { calls, turnId, error } = await runTurn({
      modelStep: ({ step }) => (step === 1 ? modelAnswer('Looking it up. ', [toolCall(1)]) : modelAnswer('Found it.')),
    });
    assert.equal(error, undefined);
    assert.deepEqual(calls.runTool.map((c) => c.call), [toolCall(1)]);
    assert.deepEqual(calls.modelStep[1]?.transcript, [
      { role: 'assistant', content: 'Looking it up. ', toolCalls: [toolCall(1)] },
      { role: 'tool', toolCallId: 'call_1', toolName: 'lookup', content: 'result of lookup', isError: false },
    ]);
    assert.deepEqual(calls.finishTurn, [{ turnId, reply: 'Looking it up. Found it.', usage: { inputTokens: 20, outputTokens: 10 } }]);
    assert.deepEqual(calls.failTurn, []);
  });

  // A failed turn is billed for the model steps it completed (each fake step uses 10 + 5 tokens).
  const none = { inputTokens: 0, outputTokens: 0 };
  const oneStep = { inputTokens: 10, outputTokens: 5 };

  it("tool results that add up past Temporal's 2 MB payload limit: each model step's transcript stays under 1 MiB, oldest trimmed, and the turn finishes", async function () {
    this.timeout(120_000);
    const big = '𝄞'.repeat(16_000); // a tool result at its 16 000-character cap, 64 KB of UTF-8
    const calls5 = (step: number) => [1, 2, 3, 4, 5].map((n) => toolCall(step * 10 + n));
    const { calls, error } = await runTurn(
      {
        modelStep: ({ step }) => (step < 8 ? modelAnswer(`step ${step}. `, calls5(step)) : modelAnswer('Done.')),
        runTool: () => ({ ok: true, content: big }),
      },
      { maxSteps: 8 },
    );
    assert.equal(error, undefined);
    assert.equal(calls.runTool.length, 35, '35 results of 64 KB: 2.2 MB in all');
    for (const c of calls.modelStep) assert.ok(Buffer.byteLength(JSON.stringify(c.transcript)) <= 1024 * 1024, `step ${c.step}`);
    const last = calls.modelStep.at(-1)?.transcript ?? [];
    assert.equal(last.length, 7 * 6, 'every call keeps its result item');
    assert.match((last[1] as { content: string }).content, /^\[trimmed: /, 'the oldest result is trimmed');
    assert.equal((last.at(-1) as { content: string }).content, big, 'the newest result is whole');
    assert.equal(calls.finishTurn.length, 1);
  });

  it('a model that always asks for a tool: after maxSteps model calls the turn fails once with the step-limit message', async () => {
    const { calls, turnId, error, handle } = await runTurn({ modelStep: ({ step }) => modelAnswer(`step ${step}. `, [toolCall(step)]) });
    assert.equal(error, undefined, 'the run itself completes: the turn failed, the workflow did not');
    assert.deepEqual(calls.modelStep.map((c) => c.step), [1, 2, 3]);
    assert.equal(calls.runTool.length, 3, 'the tools of the last step still ran');
    assert.equal(calls.modelStep[2]?.transcript.length, 4, 'each model call saw the steps before it');
    assert.deepEqual(calls.failTurn, [{ turnId, message: 'the agent did not finish within 3 steps', retryable: false, usage: { inputTokens: 30, outputTokens: 15 } }]);
    assert.deepEqual(calls.finishTurn, []);
    assert.equal((await handle.describe()).status.name, 'COMPLETED');
  });

  it("a model rejection is not retried and fails the turn once with a plain message naming the turn, not retryable", async () => {
    const { calls, turnId, error, handle } = await runTurn({
      modelStep: () => {
        throw ApplicationFailure.create({ type: 'model_rejected', message: 'prompt flagged by the provider', nonRetryable: true });
      },
    });
    assert.equal(error, undefined);
    assert.equal(calls.modelStep.length, 1, 'one attempt although modelMaxAttempts is 3');
    assert.deepEqual(calls.failTurn, [{ turnId, message: `the model refused the request (turn ${turnId})`, retryable: false, usage: none }]);
    assert.deepEqual(calls.finishTurn, []);
    assert.deepEqual(await failedActivities(handle), [
      {
        activity: 'modelStep',
        attempt: 1,
        type: 'model_rejected',
        message: 'prompt flagged by the provider',
        nonRetryable: true,
        retryState: 'RETRY_STATE_NON_RETRYABLE_FAILURE',
      },
    ]);
  });

  it('an unavailable model is tried modelMaxAttempts times, then the turn fails once, retryable', async () => {
    const { calls, turnId, handle } = await runTurn({
      modelStep: () => {
        throw ApplicationFailure.create({ type: 'model_unavailable', message: 'HTTP 503 from the provider' });
      },
    });
    assert.deepEqual(calls.modelStep.map((c) => c.attempt), [1, 2, 3]);
    assert.deepEqual(calls.failTurn, [{ turnId, message: `the model is unavailable; try again later (turn ${turnId})`, retryable: true, usage: none }]);
    assert.deepEqual(calls.finishTurn, []);
    const [failed] = await failedActivities(handle);
    assert.deepEqual([failed?.attempt, failed?.type, failed?.retryState], [3, 'model_unavailable', 'RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED']);
  });

  it('the agent deleted mid-turn: the next model call ends the turn with one failTurn and no finishTurn', async () => {
    const gone = (turnId: string) => `the agent of turn ${turnId} is gone`;
    const { calls, turnId, error, handle } = await runTurn({
      modelStep: ({ step, turnId }) => {
        if (step === 1) return modelAnswer('Checking. ', [toolCall(1)]);
        throw ApplicationFailure.nonRetryable(gone(turnId), 'agent_gone');
      },
    });
    assert.equal(error, undefined);
    assert.deepEqual(calls.modelStep.map((c) => [c.step, c.attempt]), [[1, 1], [2, 1]]);
    assert.deepEqual(calls.failTurn, [{ turnId, message: gone(turnId), retryable: false, usage: oneStep }]);
    assert.deepEqual(calls.finishTurn, []);
    const [failed] = await failedActivities(handle);
    assert.deepEqual([failed?.activity, failed?.attempt, failed?.type, failed?.nonRetryable], ['modelStep', 1, 'agent_gone', true]);
  });

  it('the agent deleted during a tool call: the turn ends with one failTurn and no further model call', async () => {
    const { calls, turnId, error } = await runTurn({
      modelStep: () => modelAnswer('Checking. ', [toolCall(1)]),
      runTool: ({ turnId }) => {
        throw ApplicationFailure.nonRetryable(`the agent of turn ${turnId} is gone`, 'agent_gone');
      },
    });
    assert.equal(error, undefined);
    assert.equal(calls.modelStep.length, 1);
    assert.equal(calls.runTool.length, 1, 'not retried');
    assert.deepEqual(calls.failTurn, [{ turnId, message: `the agent of turn ${turnId} is gone`, retryable: false, usage: oneStep }]);
    assert.deepEqual(calls.finishTurn, []);
  });

  it('model_rejected, turn_missing, agent_gone and turn_finished are never retried, even when the activity leaves them retryable', async () => {
    for (const type of ['model_rejected', 'turn_missing', 'agent_gone', 'turn_finished']) {
      const { calls } = await runTurn({
        modelStep: () => {
          throw ApplicationFailure.create({ type, message: `a ${type} failure`, nonRetryable: false });
        },
      });
      assert.equal(calls.modelStep.length, 1, `${type} was retried`);
      assert.equal(calls.failTurn.length, 1, type);
    }
  });

  it('a failTurn that cannot write fails the run after one attempt, and the failure says why: WorkflowFailedError → ApplicationFailure', async () => {
    const { calls, error, handle } = await runTurn({
      modelStep: () => {
        throw ApplicationFailure.create({ type: 'model_rejected', message: 'refused', nonRetryable: true });
      },
      failTurn: () => {
        throw ApplicationFailure.nonRetryable('the database refused the write', 'write_refused');
      },
    });
    assert.equal(calls.failTurn.length, 1);
    assert.deepEqual(calls.finishTurn, []);
    assert.ok(error instanceof WorkflowFailedError, `expected WorkflowFailedError, got ${String(error)}`);
    // A local activity's failure reaches the workflow as the activity threw it (no ActivityFailure around it).
    const cause = error.cause;
    assert.ok(cause instanceof ApplicationFailure, `expected ApplicationFailure, got ${String(cause)}`);
    assert.deepEqual([cause.type, cause.message, cause.nonRetryable], ['write_refused', 'the database refused the write', true]);
    assert.equal((await handle.describe()).status.name, 'FAILED');
  });
});
