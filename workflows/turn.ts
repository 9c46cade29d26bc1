import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ToolCallActivities, ToolCallResult } from '../activities/tool-call';
import type { TurnActivities } from '../activities/turn';
import { boundTranscript, type TranscriptItem, type TranscriptToolCall } from '../domain/turn-transcript';
import { nonRetryableTurnFailures, TurnFailure, type TurnInput } from '../domain/turn-run';

/** Runs one tool call of a turn and gives the model its result. */
export type RunToolCall = (call: TranscriptToolCall) => Promise<ToolCallResult>;

/**
 * One conversation turn: model call → tool calls → model call … until a final answer, the step
 * limit, or a failure. Each model call and each tool call is its own activity, so a worker crash
 * resumes at the last finished step. Every path ends the turn with exactly one terminal event.
 */
export async function turnWorkflow(input: TurnInput): Promise<void> {
  const tools = proxyActivities<ToolCallActivities>({
    startToCloseTimeout: '5 minutes',
    retry: { initialInterval: '1 second', maximumAttempts: 3 },
  });
  await runTurn(input, (call) => tools.runTool({ turnId: input.turnId, call }));
}

/** The loop of a turn, whoever runs its tool calls (the agent's tools, or a manager's delegations). */
export async function runTurn({ turnId, limits }: TurnInput, runCall: RunToolCall): Promise<void> {
  const model = proxyActivities<TurnActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: limits.heartbeatTimeoutMs,
    retry: {
      initialInterval: limits.modelRetryInitialMs,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: limits.modelMaxAttempts,
      nonRetryableErrorTypes: nonRetryableTurnFailures,
    },
  });
  // Short, idempotent database writes: run as local activities, in the worker that runs this
  // workflow, without a round trip through the Temporal server (a crash re-runs them; they write once).
  const bookkeeping = proxyLocalActivities<TurnActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
  });
  const transcript: TranscriptItem[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  let reply = '';
  try {
    for (let step = 1; step <= limits.maxSteps; step++) {
      const result = await model.modelStep({ turnId, step, transcript });
      usage.inputTokens += result.usage.inputTokens;
      usage.outputTokens += result.usage.outputTokens;
      reply += result.text;
      if (result.toolCalls.length === 0) {
        await bookkeeping.finishTurn({ turnId, reply, usage });
        return;
      }
      transcript.push({ role: 'assistant', content: result.text, toolCalls: result.toolCalls });
      for (const call of result.toolCalls) {
        const outcome = await runCall(call);
        transcript.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: outcome.content, isError: !outcome.ok });
      }
      // The transcript is the next step's input: it must stay under Temporal's payload limit.
      boundTranscript(transcript);
    }
    await bookkeeping.failTurn({ turnId, message: `the agent did not finish within ${limits.maxSteps} steps`, retryable: false });
  } catch (err) {
    await bookkeeping.failTurn({ turnId, ...describeFailure(err) });
  }
}

/** What a consumer is told: the provider's message, and whether trying again may help. */
function describeFailure(err: unknown): { message: string; retryable: boolean } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === TurnFailure.modelRejected) return { message: `the model rejected the request: ${cause.message}`, retryable: false };
    if (cause.type === TurnFailure.modelUnavailable) return { message: `the model is unavailable: ${cause.message}`, retryable: true };
    return { message: cause.message, retryable: !cause.nonRetryable };
  }
  return { message: cause instanceof Error ? cause.message : 'the turn failed', retryable: true };
}
