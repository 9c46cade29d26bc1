// Over 300 lines: a model step's attempt, its prompt assembly, billing and failure mapping sit
// together today; issue 52 (point 3) splits them by concern.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { type AgentTurnContext, toolContext, turnContextOf, turnGrade } from './turn-context';
import { buildManagerPrompt, delegateTools } from './manager';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { AttachmentRef, ConversationRow, MessageRow } from '../db/repositories/conversations';
import { conversationDrive, knowledgeSpace } from '../db/repositories/files';
import type { AgentConfig } from '../domain/agent';
import { needsApproval } from '../domain/approvals';
import type { Project } from '../domain/project';
import { TurnFailure } from '../domain/runs/turn';
import type { TurnErrorCode, TurnEvent } from '../domain/turn-events';
import type { TranscriptItem, TurnRef } from '../domain/turn-transcript';
import { type ModelContentPart, ModelError, type ModelMessage, type ModelProvider, type ModelToolCall, type ModelUsage } from './model/types';
import { buildSystemPrompt } from './prompt';
import type { ToolRunner } from './tools/types';
import type { Spans } from '../infra/tracing/spans';
import { StepTextStream } from './turn-text';
import { firstTextOfTurn, secondsSince, type TurnMetrics } from './turn-metrics';
import { attachmentNote, charsOfTokens, droppedNote, estimateTokens, historyWindow } from './history-window';
import type { TokenCounter } from './model/token-count';
import { StepMeter } from './step-meter';
import type { CreditRefusal } from '../db/repositories/credits';

export type ResolveModel = (grade: AgentConfig['grade']) => { provider: ModelProvider; model: string };

interface TurnDeps {
  db: Db;
  repos: Repositories;
  resolveModel: ResolveModel;
  tools: ToolRunner;
  /** Credits debited per 1000 tokens (input + output), by grade. */
  creditsPer1kTokens: Record<AgentConfig['grade'], number>;
  /** How long text deltas are batched before they are written (the first after a pause goes at once). */
  textFlushMs: number;
  historyBudget: HistoryBudget;
  metrics: TurnMetrics;
  /** A child span around the model call (no-op when tracing is off). */
  spans: Spans;
  /** Counts a step's input before the call and its output as it streams (billing a step cut short). */
  tokens: TokenCounter;
  /** The name this worker polls under: a model step's attempt is recorded against it (workers/orphan-sweeper.ts). */
  workerIdentity: string;
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

/** How much history a step may send and load (docs/http-api.md: Conversations and turns, "Bounded history"). */
export interface HistoryBudget {
  /** Estimated tokens of system prompt, earlier messages and this turn's steps, by grade. */
  tokens: Record<AgentConfig['grade'], number>;
  /** Bytes of this turn's images sent as image parts; the rest are referenced by path. */
  maxImageBytes: number;
}

/**
 * A user message as the model sees it. Only this turn's images are read and sent as image parts
 * (within the byte budget): an earlier turn's, or one over the budget, is referenced by its path,
 * so a long conversation does not re-read and re-encode every image at every step.
 */
async function userContent(
  deps: TurnDeps,
  conversation: ConversationRow,
  row: MessageRow,
  current: boolean,
  imageBytes: { left: number },
): Promise<string | ModelContentPart[]> {
  const refs: AttachmentRef[] = row.attachments ?? [];
  if (refs.length === 0) return row.content;
  const parts: ModelContentPart[] = [];
  if (row.content) parts.push({ type: 'text', text: row.content });
  for (const ref of refs) {
    const file = current && ref.kind === 'image' ? await deps.repos.files.read({ space: conversationDrive(conversation), path: ref.path }) : undefined;
    if (file && file.content.length <= imageBytes.left) {
      imageBytes.left -= file.content.length;
      parts.push({ type: 'image', mimeType: ref.mimeType, data: file.content.toString('base64') });
    } else {
      parts.push({ type: 'text', text: attachmentNote(ref, !current) });
    }
  }
  return parts;
}

/** Prefixes the note that earlier messages were left out to the first (user) message of the window. */
function withDroppedNote(message: ModelMessage, dropped: number): ModelMessage {
  if (dropped === 0 || message.role !== 'user') return message;
  const note = droppedNote(dropped);
  if (typeof message.content === 'string') return { role: 'user', content: `${note}\n\n${message.content}` };
  return { role: 'user', content: [{ type: 'text', text: note }, ...message.content] };
}

/** Tokens of this turn's steps so far: spent from the history budget before any earlier message. */
const transcriptTokens = (input: ModelStepInput) => estimateTokens(JSON.stringify(input.transcript));

/**
 * Characters of earlier messages a step may load, by grade: what each grade's budget leaves once
 * this turn's steps are in it. `history` cuts the window to what fits once the prompt's size is known.
 */
function recentChars(deps: TurnDeps, input: ModelStepInput): Record<AgentConfig['grade'], number> {
  const spent = transcriptTokens(input);
  const chars = (tokens: number) => charsOfTokens(Math.max(0, tokens - spent));
  const { standard, premium } = deps.historyBudget.tokens;
  return { standard: chars(standard), premium: chars(premium) };
}

/**
 * The conversation as model messages: the newest earlier messages that fit the grade's budget
 * (after the system prompt and this turn's steps), this turn's user message, then its steps.
 */
async function history(
  deps: TurnDeps,
  conversation: ConversationRow,
  input: ModelStepInput,
  loaded: { rows: MessageRow[]; total: number },
  budgetTokens: number,
  system: string,
): Promise<ModelMessage[]> {
  const spent = estimateTokens(system) + transcriptTokens(input);
  const budgetChars = charsOfTokens(Math.max(0, budgetTokens - spent));
  const window = historyWindow(loaded.rows, loaded.total, budgetChars);
  const imageBytes = { left: deps.historyBudget.maxImageBytes };
  const out: ModelMessage[] = [];
  for (const row of window.rows) {
    if (row.role === 'assistant') out.push({ role: 'assistant', content: row.content });
    else out.push({ role: 'user', content: await userContent(deps, conversation, row, row.turn_id === input.turnId, imageBytes) });
  }
  if (out[0]) out[0] = withDroppedNote(out[0], window.dropped);
  return [...out, ...input.transcript];
}

/** At most this many paths of each space are listed in the prompt. */
const MAX_LISTED_FILES = 100;

/** The files the agent can see: the drive (with `filesystem: drive`) and its knowledge (with `knowledge.search`). */
async function visibleFiles(deps: TurnDeps, config: AgentConfig, conversation: ConversationRow, agentId: string) {
  const paths = async (space: string) => (await deps.repos.files.paths({ space, limit: MAX_LISTED_FILES }));
  return {
    drive: config.filesystem === 'drive' ? await paths(conversationDrive(conversation)) : [],
    knowledge: config.tools.includes('knowledge.search') ? await paths(knowledgeSpace(agentId)) : [],
  };
}

/** An agent's system prompt and tools, from its pinned version. */
async function agentPrompt(deps: TurnDeps, context: AgentTurnContext) {
  const { config, conversation, agentId } = context;
  const [offered, files] = await Promise.all([deps.tools.available(toolContext(context)), visibleFiles(deps, config, conversation, agentId)]);
  return {
    system: buildSystemPrompt({ agent: config, parameters: conversation.parameters, files, now: new Date() }),
    tools: offered.map((t) => t.definition),
    shownAs: new Map(offered.map((t) => [t.definition.name, t.displayName])),
  };
}

/** The manager's system prompt and its delegation tool, from the project and its members now (a removed member is no longer offered). */
async function managerPrompt(deps: TurnDeps, project: Project, conversation: ConversationRow) {
  const files = await deps.repos.files.paths({ space: conversationDrive(conversation), limit: MAX_LISTED_FILES });
  return { system: buildManagerPrompt({ project, parameters: conversation.parameters, files, now: new Date() }), tools: delegateTools(project.agents), shownAs: new Map<string, string>() };
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

/** Input and output as billed: the provider's usage when it reported any, else the step's own count. */
function billedUsage(reported: ModelUsage, meter: StepMeter, inputTokens: number): ModelUsage {
  return reported.inputTokens + reported.outputTokens > 0 ? reported : { inputTokens, outputTokens: meter.outputTokens };
}

function toFailure(e: unknown): Error {
  if (e instanceof ModelError) {
    return ApplicationFailure.create({
      message: e.message,
      type: e.retryable ? TurnFailure.modelUnavailable : TurnFailure.modelRejected,
      nonRetryable: !e.retryable,
      ...(e.retryAfterMs !== undefined ? { nextRetryDelay: e.retryAfterMs } : {}),
      details: [{ status: e.status ?? null }],
    });
  }
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * One attempt of a model step. Its record against this worker (`activity_attempts`) is written by
 * its first statement and removed by its last; `attempt.ended` says whether that last one ran.
 */
async function modelStepAttempt(deps: TurnDeps, input: ModelStepInput, attempt: { ended: boolean }): Promise<ModelStepResult> {
  const ctx = Context.current();
  const writer = `${ctx.info.activityId}#${ctx.info.attempt}`;
  const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
  // One round trip: record the attempt, claim the turn for it, read it with its conversation, its
  // version and the newest messages that could fit the grade's budget once this turn's steps are in it.
  const claimed = await deps.repos.turns.claimStep({
    turnId: input.turnId,
    writer,
    attempt: { taskToken: ctx.info.taskToken, worker: deps.workerIdentity, workflowId },
    recentChars: recentChars(deps, input),
  });
  if (!claimed) throw ApplicationFailure.nonRetryable('the turn is no longer running', TurnFailure.turnFinished);
  const context = await turnContextOf(deps.repos, claimed);
  const { conversation } = context;
  const grade = turnGrade(context);
  if (input.step === 1 && ctx.info.attempt === 1) deps.metrics.started(grade);
  const { provider, model } = deps.resolveModel(grade);
  const budgetTokens = deps.historyBudget.tokens[grade];
  const [{ system, tools, shownAs }, alreadyShown] = await Promise.all([
    context.kind === 'agent' ? agentPrompt(deps, context) : managerPrompt(deps, context.project, conversation),
    // Only a retried attempt can find text of its step already shown.
    ctx.info.attempt > 1 ? deps.repos.turns.stepText({ turnId: input.turnId, step: input.step }) : Promise.resolve(''),
  ]);
  // The window is cut after the prompt is known: the budget covers the prompt too.
  const messages = await history(deps, conversation, input, claimed.recent, budgetTokens, system);
  // Before every step, not only at admission: a long turn stops once its credits are spent.
  const inputTokens = deps.tokens.request({ system, messages, tools });
  const creditsPer1k = deps.creditsPer1kTokens[grade];
  const agentId = context.turn.agent_id;
  const key = { turnId: input.turnId, writer };
  // One round trip: the credit check and, when it passes, the attempt's recorded input.
  const refusal = await deps.repos.credits.beginStep({
    turnId: input.turnId,
    workspaceId: conversation.workspace_id,
    agentId,
    stepCredits: (inputTokens / 1000) * creditsPer1k,
    usage: { writer, step: input.step, inputTokens, creditsPer1k },
  });
  if (refusal) throw creditStop(refusal, agentId);
  const meter = new StepMeter(deps.repos.stepUsage, key, deps.tokens);
  const heartbeat = setInterval(() => {
    ctx.heartbeat();
    // Output that no text batch carries (tool-call arguments, reasoning): best effort, each second.
    meter.flush().catch(() => undefined);
  }, 1000);
  // A write that fails dooms the attempt: stop the model call and the heartbeat now, so the
  // attempt fails at once and Temporal retries it after its backoff (not after the heartbeat timeout).
  const doomed = new AbortController();
  let awaitingFirstText = firstTextOfTurn(input.transcript, alreadyShown);
  const text = new StepTextStream(
    alreadyShown,
    async (events) => {
      const outputTokens = meter.outputTokens;
      const appended = await deps.repos.turns.append({ turnId: input.turnId, events, step: input.step, writer, outputTokens });
      if (appended) meter.recordedUpTo(outputTokens);
      if (appended && awaitingFirstText) {
        awaitingFirstText = false;
        deps.metrics.firstText(grade, secondsSince(context.turn.started_at));
      }
      return appended;
    },
    deps.textFlushMs,
    () => ctx.heartbeat(),
    (err) => {
      clearInterval(heartbeat);
      doomed.abort(err);
    },
  );
  try {
    const request = { model, system, messages, tools, signal: AbortSignal.any([ctx.cancellationSignal, doomed.signal]) };
    // Named as OpenTelemetry's GenAI conventions name a model call: `chat <model>`.
    const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': provider.id, 'gen_ai.request.model': model, 'hosted_agents.step': input.step };
    const result = await deps.spans.run(`chat ${model}`, attributes, async (span) => {
      const answer = await provider.stream(
        request,
        (delta) => {
          meter.add(delta);
          text.push(delta);
        },
        (delta) => meter.add(delta),
      );
      span.annotate({ 'gen_ai.usage.input_tokens': answer.usage.inputTokens, 'gen_ai.usage.output_tokens': answer.usage.outputTokens });
      return answer;
    });
    await text.end();
    const usage = billedUsage(result.usage, meter, inputTokens);
    await deps.repos.stepUsage.final({ ...key, ...usage, taskToken: ctx.info.taskToken });
    attempt.ended = true;
    const toolNames = result.toolCalls.map((c) => shownAs.get(c.name) ?? c.name);
    const waits = context.kind === 'agent' ? toolNames.map((name) => needsApproval(context.config, name)) : [];
    return { text: result.text, toolCalls: result.toolCalls, toolNames, ...(waits.includes(true) ? { needsApproval: waits } : {}), usage };
  } catch (e) {
    text.abandon();
    // A request the provider refused or could not take consumed nothing; any other end
    // (cancel, deadline, a stream broken midway) is billed for what was produced.
    const record = e instanceof ModelError && meter.outputTokens === 0 ? deps.repos.stepUsage.waive(key) : meter.flush();
    await record.catch(() => undefined);
    // The write failure is the cause, not the abort it led to.
    throw text.failed ?? toFailure(e);
  } finally {
    clearInterval(heartbeat);
  }
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

/**
 * Ends a running turn with its terminal event and debits its usage, in one round trip and one
 * transaction keyed by the turn id (a retried call finds it ended and writes nothing); `reply`,
 * when given, is written as the assistant message. Its reservation ends with it. A turn of a
 * conversation that is gone has nothing left to settle. The usage is what its model steps
 * recorded (`turn_step_usage`: each attempt, finished or cut short), read after the turn's row is
 * locked by its end, so no step writes after it; `usage` from the workflow counts only for a turn
 * that recorded none (started before migration 017). The grade it is debited at is its agent's,
 * a manager's project's, or standard when the agent's version is gone (migration 026).
 */
async function settleTurn(
  deps: TurnDeps,
  input: { turnId: string; usage: ModelUsage; terminal: TurnEvent; reply?: string; status: 'done' | 'error' | 'cancelled' },
): Promise<void> {
  const ended = await deps.repos.turns.settle({ ...input, rates: deps.creditsPer1kTokens });
  // Only the call that ended the turn counts it, after its transaction committed.
  if (ended?.settled) {
    deps.metrics.ended({ grade: ended.grade, status: input.status, seconds: secondsSince(ended.startedAt), usage: ended.usage, credits: ended.cost });
  }
}

export type TurnActivities = ReturnType<typeof createTurnActivities>;
