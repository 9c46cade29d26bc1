import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../db/connect';
import type { MessageRow } from '../db/repositories/conversations';
import type { AgentConfig } from '../domain/agent';
import { needsApproval } from '../domain/approvals';
import { TurnFailure } from '../domain/runs/turn';
import type { TurnErrorCode, TurnEvent } from '../domain/turn-events';
import type { TranscriptItem, TurnRef } from '../domain/turn-transcript';
import type { Spans } from '../infra/tracing/spans';
import { modelStepFailure } from './failure-mapping';
import { type OutagePolicy, writeThroughOutage } from './outage-tolerant-writes';
import type { ModelMessage, ModelProvider, ModelResult, ModelToolCall, ModelUsage } from './model/types';
import { type HistoryBudget, recentChars, stepMessages, type StepPrompt, stepPrompt } from './prompt';
import type { StepMeter } from './step-meter';
import type { ToolRunner } from './tools/types';
import { billCutShort, closeStepBill, openStepBill, settleTurn, type StepBill, type TurnBillingDeps } from './turn-billing';
import { type TurnContext, turnContextOf, turnGrade } from './turn-context';
import { firstTextOfTurn, secondsSince } from './turn-metrics';
import { StepTextStream } from './turn-text';

export type ResolveModel = (grade: AgentConfig['grade']) => { provider: ModelProvider; model: string };

interface TurnDeps extends TurnBillingDeps {
  db: Db;
  resolveModel: ResolveModel;
  tools: ToolRunner;
  /** How long text deltas are batched before they are written (the first after a pause goes at once). */
  textFlushMs: number;
  historyBudget: HistoryBudget;
  /** A child span around the model call (no-op when tracing is off). */
  spans: Spans;
  /** The name this worker polls under: a model step's attempt is recorded against it (workers/orphan-sweeper.ts). */
  workerIdentity: string;
  /** How a streaming step rides out PostgreSQL being away instead of paying for its model call twice. */
  dbOutage: OutagePolicy;
}

export interface ModelStepInput extends TurnRef {
  step: number;
  transcript: TranscriptItem[];
}

export interface ModelStepResult {
  text: string;
  toolCalls: ModelToolCall[];
  /** Each tool call's name as the turn's events show it (`files.write` for `files_write`): the workflow's activity summaries. */
  toolNames?: string[];
  /** Which tool calls wait for a person's approval (docs/approvals.md); absent when none does. */
  needsApproval?: boolean[];
  usage: ModelUsage;
}

/** An attempt that holds its turn: who writes for it, the turn's context and grade, the newest messages read with it. */
interface ClaimedStep {
  ctx: Context;
  input: ModelStepInput;
  writer: string;
  context: TurnContext;
  grade: AgentConfig['grade'];
  recent: { rows: MessageRow[]; total: number };
}

/** What the step sends, to which model, and the text an earlier attempt of the step already showed. */
interface StepRequest extends StepPrompt {
  provider: ModelProvider;
  model: string;
  messages: ModelMessage[];
  alreadyShown: string;
}

/** Records the attempt against this worker and claims the turn for it; a turn that ended is not claimed. */
async function claimStep(deps: TurnDeps, input: ModelStepInput, ctx: Context): Promise<ClaimedStep> {
  const writer = `${ctx.info.activityId}#${ctx.info.attempt}`;
  const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
  // One round trip: record the attempt, claim the turn for it, read it with its conversation, its
  // version and the newest messages that could fit the grade's budget once this turn's steps are in it.
  const claimed = await deps.repos.turns.claimStep({
    turnId: input.turnId,
    writer,
    attempt: { taskToken: ctx.info.taskToken, worker: deps.workerIdentity, workflowId },
    recentChars: recentChars(deps.historyBudget, input),
  });
  if (!claimed) throw ApplicationFailure.nonRetryable('the turn is no longer running', TurnFailure.turnFinished);
  const context = await turnContextOf(deps.repos, claimed);
  const grade = turnGrade(context);
  if (input.step === 1 && ctx.info.attempt === 1) deps.metrics.started(grade);
  return { ctx, input, writer, context, grade, recent: claimed.recent };
}

/** The step's request: its prompt and tools, then as much history as fits beside them. */
async function assembleRequest(deps: TurnDeps, step: ClaimedStep): Promise<StepRequest> {
  const { ctx, input, context, grade } = step;
  const { provider, model } = deps.resolveModel(grade);
  const [prompt, alreadyShown] = await Promise.all([
    stepPrompt(deps, context),
    // Only a retried attempt can find text of its step already shown.
    ctx.info.attempt > 1 ? deps.repos.turns.stepText({ turnId: input.turnId, step: input.step }) : Promise.resolve(''),
  ]);
  // The window is cut after the prompt is known: the budget covers the prompt too.
  const messages = await stepMessages(deps, context.conversation, input, step.recent, deps.historyBudget.tokens[grade], prompt.system);
  return { ...prompt, provider, model, messages, alreadyShown };
}

/** Whom the attempt bills: its turn's workspace and agent, at the turn's grade. */
function billedAs({ input, writer, context, grade }: ClaimedStep) {
  return { turnId: input.turnId, writer, step: input.step, workspaceId: context.conversation.workspace_id, agentId: context.turn.agent_id, grade };
}

/** The step's text on its way to the event log: each batch carries the output so far; the turn's first text is timed. */
function stepText(deps: TurnDeps, step: ClaimedStep, alreadyShown: string, meter: StepMeter, onDoomed: (err: Error) => void): StepTextStream {
  const { ctx, input, writer, grade, context } = step;
  let awaitingFirstText = firstTextOfTurn(input.transcript, alreadyShown);
  const append = async (events: TurnEvent[]) => {
    const outputTokens = meter.outputTokens;
    const appended = await deps.repos.turns.append({ turnId: input.turnId, events, step: input.step, writer, outputTokens });
    if (appended) meter.recordedUpTo(outputTokens);
    if (appended && awaitingFirstText) {
      awaitingFirstText = false;
      deps.metrics.firstText(grade, secondsSince(context.turn.started_at));
    }
    return appended;
  };
  const sink = {
    append,
    readShown: () => deps.repos.turns.stepText({ turnId: input.turnId, step: input.step }),
    outage: deps.dbOutage,
    signal: ctx.cancellationSignal,
  };
  return new StepTextStream(alreadyShown, sink, deps.textFlushMs, () => ctx.heartbeat(), onDoomed);
}

/** The model call in a child span, named as OpenTelemetry's GenAI conventions name one: `chat <model>`. */
function chat(deps: TurnDeps, step: number, request: StepRequest, signal: AbortSignal, onText: (delta: string) => void, onOutput: (delta: string) => void): Promise<ModelResult> {
  const { provider, model, system, messages, tools } = request;
  const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': provider.id, 'gen_ai.request.model': model, 'hosted_agents.step': step };
  return deps.spans.run(`chat ${model}`, attributes, async (span) => {
    const answer = await provider.stream({ model, system, messages, tools, signal }, onText, onOutput);
    span.annotate({ 'gen_ai.usage.input_tokens': answer.usage.inputTokens, 'gen_ai.usage.output_tokens': answer.usage.outputTokens });
    return answer;
  });
}

/** The model call with its text streamed into the event log, and its usage written once it completes. */
async function streamAnswer(deps: TurnDeps, step: ClaimedStep, request: StepRequest, bill: StepBill): Promise<{ answer: ModelResult; usage: ModelUsage }> {
  const { ctx } = step;
  const { meter } = bill;
  const heartbeat = setInterval(() => {
    ctx.heartbeat();
    // Output that no text batch carries (tool-call arguments, reasoning): best effort, each second.
    meter.flush().catch(() => undefined);
  }, 1000);
  // A write that fails dooms the attempt — unless it failed for PostgreSQL being away, which the
  // text stream waits out within `deps.dbOutage` while the model call goes on. Doomed, it stops
  // the model call and the heartbeat now, so the attempt fails at once and Temporal retries it
  // after its backoff (not after the heartbeat timeout).
  const doomed = new AbortController();
  const text = stepText(deps, step, request.alreadyShown, meter, (err) => {
    clearInterval(heartbeat);
    doomed.abort(err);
  });
  try {
    const signal = AbortSignal.any([ctx.cancellationSignal, doomed.signal]);
    const onText = (delta: string) => {
      meter.add(delta);
      text.push(delta);
    };
    const answer = await chat(deps, step.input.step, request, signal, onText, (delta) => meter.add(delta));
    await text.end();
    // The usage too waits out an outage: the step is paid for once and billed once.
    const close = () => closeStepBill(deps.repos, bill, answer.usage, ctx.info.taskToken);
    const usage = await writeThroughOutage(close, { maxMs: deps.dbOutage.maxMs, signal: ctx.cancellationSignal, onOutage: () => ctx.heartbeat() });
    return { answer, usage };
  } catch (e) {
    text.abandon();
    await billCutShort(deps.repos, bill, e);
    // The write failure is the cause, not the abort it led to.
    throw text.failed ?? modelStepFailure(e);
  } finally {
    clearInterval(heartbeat);
  }
}

/** What the workflow gets back: the answer, each tool call's name as the events show it, which calls wait for a person. */
function stepResult(context: TurnContext, shownAs: Map<string, string>, answer: ModelResult, usage: ModelUsage): ModelStepResult {
  const toolNames = answer.toolCalls.map((c) => shownAs.get(c.name) ?? c.name);
  const waits = context.kind === 'agent' ? toolNames.map((name) => needsApproval(context.config, name)) : [];
  return { text: answer.text, toolCalls: answer.toolCalls, toolNames, ...(waits.includes(true) ? { needsApproval: waits } : {}), usage };
}

/**
 * One attempt of a model step. Its record against this worker (`activity_attempts`) is written by
 * its first statement (the claim) and removed by its last (the closed bill); `attempt.ended` says
 * whether that last one ran.
 */
async function modelStepAttempt(deps: TurnDeps, input: ModelStepInput, attempt: { ended: boolean }): Promise<ModelStepResult> {
  const step = await claimStep(deps, input, Context.current());
  const request = await assembleRequest(deps, step);
  const bill = await openStepBill(deps, billedAs(step), request);
  const { answer, usage } = await streamAnswer(deps, step, request, bill);
  attempt.ended = true;
  return stepResult(step.context, request.shownAs, answer, usage);
}

export function createTurnActivities(deps: TurnDeps) {
  return {
    /** One model call: streams its text into the event log and returns text and tool calls. */
    async modelStep(input: ModelStepInput): Promise<ModelStepResult> {
      const { taskToken } = Context.current().info;
      const attempt = { ended: false };
      try {
        return await modelStepAttempt(deps, input, attempt);
      } finally {
        // Unless its last write removed it: best effort, and one left behind is swept once this
        // worker is gone (failing an attempt that already completed is refused and ignored).
        if (!attempt.ended) void deps.repos.workerLiveness.attemptEnded(taskToken).catch(() => undefined);
      }
    },

    /**
     * Ends the turn: the assistant message, the credit debit and the `done` event in one
     * transaction, keyed by the turn id so a retried activity writes nothing twice.
     */
    async finishTurn(input: TurnRef & { reply: string; usage: ModelUsage }): Promise<void> {
      await settleTurn(deps, { turnId: input.turnId, usage: input.usage, terminal: { type: 'done', reply: input.reply }, reply: input.reply, status: 'done' });
    },

    /**
     * Ends the turn with an `error` event (no reply), debiting the usage of the model steps it
     * completed — a failed, cancelled or timed-out turn still cost what the provider ran. Idempotent.
     */
    async failTurn(
      input: TurnRef & {
        message: string;
        retryable: boolean;
        usage?: ModelUsage;
        cancelled?: boolean;
        /** Why, for a turn stopped for its credits (the `error` event's `code`). */
        code?: TurnErrorCode;
        /** The text of the steps it finished, kept as the assistant message (a turn stopped for its credits). */
        reply?: string;
      },
    ): Promise<void> {
      const terminal: TurnEvent = { type: 'error', message: input.message, retryable: input.retryable, ...(input.code ? { code: input.code } : {}) };
      await settleTurn(deps, {
        turnId: input.turnId,
        usage: input.usage ?? { inputTokens: 0, outputTokens: 0 },
        terminal,
        ...(input.reply ? { reply: input.reply } : {}),
        status: input.cancelled ? 'cancelled' : 'error',
      });
    },
  };
}

export type TurnActivities = ReturnType<typeof createTurnActivities>;
