import { ActivityFailure, ApplicationFailure, type ActivityOptions, CancellationScope, isCancellation, log, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { ApprovalActivities } from '../activities/approvals';
import type { ToolCallActivities, ToolCallResult } from '../activities/tool-call';
import type { TurnActivities } from '../activities/turn';
import { boundTranscript, type TranscriptItem, type TranscriptToolCall } from '../domain/turn-transcript';
import type { TurnErrorCode } from '../domain/turn-events';
import { isCreditStop, nonRetryableTurnFailures, TURN_CANCELLED_MESSAGE, TurnFailure, type TurnInput, type TurnOutcome, TURN_OUTCOME_MAX_CALLS, turnOutcomeCall } from '../domain/runs/turn';
import { approvalWaits, DeadlineClock } from './approval-wait';
import { summaries } from './summaries';

/**
 * Runs one tool call of a turn and gives the model its result; `shownName` is the tool's name as
 * the turn's events show it (`files.write`), for the call's summary in the Temporal UI.
 */
export type RunToolCall = (call: TranscriptToolCall, shownName: string) => Promise<ToolCallResult>;

/**
 * One conversation turn: model call → tool calls → model call … until a final answer, the step
 * limit, or a failure. Each model call and each tool call is its own activity, so a worker crash
 * resumes at the last finished step. Every path ends the turn with exactly one terminal event.
 */
export async function turnWorkflow(input: TurnInput): Promise<TurnOutcome> {
  const options: ActivityOptions = { startToCloseTimeout: '5 minutes', retry: { initialInterval: '1 second', maximumAttempts: 3 } };
  return runTurn(input, (call, shownName) =>
    proxyActivities<ToolCallActivities>({ ...options, summary: summaries.tool(shownName) }).runTool({ turnId: input.turnId, call }),
  );
}

/**
 * The loop of a turn, whoever runs its tool calls (the agent's tools, or a manager's delegations).
 * The loop runs in a cancellation scope with the turn's deadline (`limits.turnTimeoutMs`): a
 * workflow execution timeout would kill the workflow without running any of its code, leaving the
 * turn `running` and its conversation refusing asks, so the deadline is a timer of the workflow
 * itself. Cancelling the workflow (`POST /v1/turns/:turnId/cancel`, `conversation.end()`) cancels
 * the scope too. Either way the in-flight activity (or delegated child turn) is cancelled and the
 * turn is ended — in a non-cancellable scope — with one `error` event, debiting what it consumed.
 * A turn stopped for its credits before a step keeps the text of the steps it finished.
 * Its result says how it ended and which tools the model called (what an eval run's checks read).
 *
 * A tool call that needs a person's approval waits in the loop (approval-wait.ts): no activity
 * runs meanwhile, and the deadline's clock stops until the wait ends, so only the approval timeout
 * bounds it. A cancel cancels the wait like any step.
 */
export async function runTurn({ turnId, limits }: TurnInput, runCall: RunToolCall): Promise<TurnOutcome> {
  const modelOptions: ActivityOptions = {
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: limits.heartbeatTimeoutMs,
    retry: {
      initialInterval: limits.modelRetryInitialMs,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: limits.modelMaxAttempts,
      nonRetryableErrorTypes: nonRetryableTurnFailures,
    },
  };
  const model = (step: number) => proxyActivities<TurnActivities>({ ...modelOptions, summary: summaries.modelStep(step) });
  // Short, idempotent database writes: run as local activities, in the worker that runs this
  // workflow, without a round trip through the Temporal server (a crash re-runs them; they write once).
  const bookkeeping = (summary: string) =>
    proxyLocalActivities<TurnActivities>({
      startToCloseTimeout: '30 seconds',
      retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
      summary,
    });
  // The end of a turn is written whatever happens to the loop.
  const settle = (end: () => Promise<void>) => CancellationScope.nonCancellable(end);
  const clock = new DeadlineClock();
  const approvals = approvalWaits((summary) => proxyLocalActivities<ApprovalActivities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' }, summary }), () => clock);
  const usage = { inputTokens: 0, outputTokens: 0 };
  const workflowScope = CancellationScope.current();
  const loop = new CancellationScope({ cancellable: true });
  let reply = '';
  const called: TurnOutcome['toolCalls'] = [];
  try {
    const outcome = await runWithDeadline(loop, limits.turnTimeoutMs, clock, async () => {
      const transcript: TranscriptItem[] = [];
      for (let step = 1; step <= limits.maxSteps; step++) {
        const result = await model(step).modelStep({ turnId, step, transcript });
        usage.inputTokens += result.usage.inputTokens;
        usage.outputTokens += result.usage.outputTokens;
        reply += result.text;
        if (result.toolCalls.length === 0) return { reply };
        transcript.push({ role: 'assistant', content: result.text, toolCalls: result.toolCalls });
        for (const [i, call] of result.toolCalls.entries()) {
          // Results recorded before `toolNames` existed lack it: the model's name will do there.
          const shownName = result.toolNames?.[i] ?? call.name;
          // What the model called, run or not: a call a person denied was still the model's choice.
          if (called.length < TURN_OUTCOME_MAX_CALLS) called.push(turnOutcomeCall(shownName, call.args));
          const settled = approvals.applies(result.needsApproval?.[i]) ? await approvals.wait(turnId, call, shownName) : { status: 'approved' as const };
          const outcome = settled.status === 'approved' ? await runCall(call, shownName) : { ok: false, content: settled.content };
          transcript.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: outcome.content, isError: !outcome.ok });
        }
        // The transcript is the next step's input: it must stay under Temporal's payload limit.
        boundTranscript(transcript);
      }
      return undefined;
    });
    if (outcome) {
      await settle(() => bookkeeping(summaries.turnEnd('done')).finishTurn({ turnId, reply: outcome.reply, usage }));
      return { status: 'done', toolCalls: called };
    }
    await settle(() => bookkeeping(summaries.turnEnd('error')).failTurn({ turnId, message: `the agent did not finish within ${limits.maxSteps} steps`, retryable: false, usage }));
  } catch (err) {
    const end = workflowScope.consideredCancelled
      ? { message: TURN_CANCELLED_MESSAGE, retryable: false, cancelled: true }
      : loop.consideredCancelled && isCancellation(err)
        ? { message: `the turn did not finish within its time limit of ${Math.round((limits.turnTimeoutMs ?? 0) / 1000)} s`, retryable: true }
        : describeFailure(turnId, err);
    await settle(() => bookkeeping(summaries.turnEnd('error')).failTurn({ turnId, ...end, usage, ...('code' in end ? { reply } : {}) }));
  }
  return { status: 'error', toolCalls: called };
}

/**
 * Runs `fn` in `scope`, cancelling the scope when `timeoutMs` passes: what a scope's own `timeout`
 * option does (a timer started in a child scope before `fn` runs, cancelled when `fn` ends), but
 * with the timer named "turn deadline" in the Temporal UI, which that option cannot do. The same
 * commands in the same order, so runs started before this change replay unchanged. Time the
 * `clock` spent paused (waiting for approvals) is added on when the timer fires.
 */
function runWithDeadline<T>(scope: CancellationScope, timeoutMs: number | undefined, clock: DeadlineClock, fn: () => Promise<T>): Promise<T> {
  return scope.run(async () => {
    if (!timeoutMs) return fn();
    const timer = new CancellationScope();
    const deadline = async () => {
      await sleep(timeoutMs, { summary: summaries.turnDeadline });
      await clock.overtime(timeoutMs);
    };
    void timer.run(deadline).then(
      () => scope.cancel(),
      () => undefined, // the loop ended (or was cancelled) first
    );
    try {
      return await fn();
    } finally {
      if (!timer.consideredCancelled) timer.cancel();
    }
  });
}

/** Failure types whose messages are ours (no provider or engine text): shown as they are. */
const OWN_MESSAGES: readonly string[] = [TurnFailure.turnMissing, TurnFailure.agentGone, TurnFailure.turnFinished];

/**
 * What a consumer (an API client, a public visitor) is told: a plain sentence naming the turn, and
 * whether trying again may help. The provider's or engine's own message — an HTTP error body, a
 * gRPC status — may carry account details or key ids: it goes to the worker's log, and stays in the
 * activity failure in Temporal history, where only the operator looks.
 */
function describeFailure(turnId: string, err: unknown): { message: string; retryable: boolean; code?: TurnErrorCode } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  log.warn('turn failed', { turnId, type: cause instanceof ApplicationFailure ? cause.type : undefined, detail: cause instanceof Error ? cause.message : String(cause) });
  if (cause instanceof ApplicationFailure) {
    // Our own messages; a top-up or a raised cap lets the next ask go on.
    if (isCreditStop(cause.type)) return { message: cause.message, retryable: false, code: cause.type };
    if (cause.type === TurnFailure.modelRejected) return { message: `the model refused the request (turn ${turnId})`, retryable: false };
    if (cause.type === TurnFailure.modelUnavailable) return { message: `the model is unavailable; try again later (turn ${turnId})`, retryable: true };
    if (cause.type && OWN_MESSAGES.includes(cause.type)) return { message: cause.message, retryable: !cause.nonRetryable };
    return { message: `the turn failed (turn ${turnId})`, retryable: !cause.nonRetryable };
  }
  return { message: `the turn failed (turn ${turnId})`, retryable: true };
}
