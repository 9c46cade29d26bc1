import { ApplicationFailure } from '@temporalio/common';
import type { Repositories } from '../db/repositories';
import type { CreditRefusal } from '../db/repositories/credits';
import type { AgentConfig } from '../domain/agent';
import { TurnFailure } from '../domain/runs/turn';
import type { TurnEvent } from '../domain/turn-events';
import type { TokenCounter } from './model/token-count';
import { ModelError, type ModelRequest, type ModelUsage } from './model/types';
import { StepMeter } from './step-meter';
import { secondsSince, type TurnMetrics } from './turn-metrics';

/**
 * What a turn costs: each model step's attempt is checked against the credits before it starts
 * and records what it consumes as it goes (`turn_step_usage`); the turn's end debits the sum.
 */
export interface TurnBillingDeps {
  repos: Repositories;
  /** Credits debited per 1000 tokens (input + output), by grade. */
  creditsPer1kTokens: Record<AgentConfig['grade'], number>;
  /** Counts a step's input before the call and its output as it streams (billing a step cut short). */
  tokens: TokenCounter;
  metrics: TurnMetrics;
}

/** One attempt of a model step as billed: its key in `turn_step_usage`, its counted input, its output so far. */
export interface StepBill {
  key: { turnId: string; writer: string };
  inputTokens: number;
  meter: StepMeter;
}

/** Why a model step may not start: the turn stops with an `error` event carrying the type as its code. */
function creditStop(refusal: CreditRefusal, agentId: string | null): Error {
  const round = (n: number) => Math.round(n * 100) / 100;
  return refusal.refused === 'workspace'
    ? ApplicationFailure.create({ type: TurnFailure.creditsExhausted, nonRetryable: true, message: 'the workspace has no credits left for another model step; the turn stopped' })
    : ApplicationFailure.create({
        type: TurnFailure.creditCapReached,
        nonRetryable: true,
        message: `agent ${agentId ?? ''} reached its credit cap (${round(refusal.spent)} of ${round(refusal.cap)} credits spent); the turn stopped`,
      });
}

/**
 * Opens an attempt's bill, or stops the turn for its credits. Before every step, not only at
 * admission: a long turn stops once its credits are spent.
 */
export async function openStepBill(
  deps: TurnBillingDeps,
  step: { turnId: string; writer: string; step: number; workspaceId: string; agentId: string | null; grade: AgentConfig['grade'] },
  request: Pick<ModelRequest, 'system' | 'messages' | 'tools'>,
): Promise<StepBill> {
  const inputTokens = deps.tokens.request(request);
  const creditsPer1k = deps.creditsPer1kTokens[step.grade];
  const key = { turnId: step.turnId, writer: step.writer };
  // One round trip: the credit check and, when it passes, the attempt's recorded input.
  const refusal = await deps.repos.credits.beginStep({
    turnId: step.turnId,
    workspaceId: step.workspaceId,
    agentId: step.agentId,
    stepCredits: (inputTokens / 1000) * creditsPer1k,
    usage: { writer: step.writer, step: step.step, inputTokens, creditsPer1k },
  });
  if (refusal) throw creditStop(refusal, step.agentId);
  return { key, inputTokens, meter: new StepMeter(deps.repos.stepUsage, key, deps.tokens) };
}

/**
 * Closes the bill of an attempt that completed: input and output as billed are the provider's
 * usage when it reported any, else the step's own count. The write is the attempt's last
 * statement (it also removes the attempt's record against this worker).
 */
export async function closeStepBill(repos: Pick<Repositories, 'stepUsage'>, bill: StepBill, reported: ModelUsage, taskToken: Uint8Array): Promise<ModelUsage> {
  const usage = reported.inputTokens + reported.outputTokens > 0 ? reported : { inputTokens: bill.inputTokens, outputTokens: bill.meter.outputTokens };
  await repos.stepUsage.final({ ...bill.key, ...usage, taskToken });
  return usage;
}

/** Records what a failed attempt consumed, best effort: the failure, not this write, is what the attempt reports. */
export async function billCutShort(repos: Pick<Repositories, 'stepUsage'>, bill: StepBill, e: unknown): Promise<void> {
  // A request the provider refused or could not take consumed nothing; any other end
  // (cancel, deadline, a stream broken midway) is billed for what was produced.
  const record = e instanceof ModelError && bill.meter.outputTokens === 0 ? repos.stepUsage.waive(bill.key) : bill.meter.flush();
  await record.catch(() => undefined);
}

/**
 * Ends a running turn with its terminal event and debits its usage, in one round trip and one
 * transaction keyed by the turn id (a retried call finds it ended and writes nothing); `reply`,
 * when given, is written as the assistant message. Its reservation ends with it. A turn of a
 * conversation that is gone has nothing left to settle. The usage is what its model steps
 * recorded (`turn_step_usage`: each attempt, finished or cut short), read after the turn's row is
 * locked by its end, so no step writes after it; `usage` from the workflow counts only for a turn
 * that recorded none (started before migration 017). The grade it is debited at is its agent's,
 * a manager's project's, or standard when the agent's version is gone (db/turns/sql/settle_turn.v1.sql).
 */
export async function settleTurn(
  deps: TurnBillingDeps,
  input: { turnId: string; usage: ModelUsage; terminal: TurnEvent; reply?: string; status: 'done' | 'error' | 'cancelled' },
): Promise<void> {
  const ended = await deps.repos.turns.settle({ ...input, rates: deps.creditsPer1kTokens });
  // Only the call that ended the turn counts it, after its transaction committed.
  if (ended?.settled) {
    deps.metrics.ended({ grade: ended.grade, status: input.status, seconds: secondsSince(ended.startedAt), usage: ended.usage, credits: ended.cost });
  }
}
