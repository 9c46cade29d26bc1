import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { AgentConfig } from '../domain/agent';
import { resolveParameters } from '../domain/conversation';
import type { EvalCase } from '../domain/evals';
import type { EvalCaseTurns, EvalTurnOpening } from '../domain/runs/eval-run';
import { type EvalCaseResult, type EvalCheckOutcome, type EvalRun, MAX_EVIDENCE_REPLY_CHARS, MAX_EVIDENCE_TOOL_CALLS } from '../domain/eval-runs';
import { notReady, openTurn } from '../turns/open';
import { runCheck } from './evals/checks';
import { creditStopCode, judgeCall, type JudgeCreditStop } from './evals/judge-call';
import type { TokenCounter } from './model/token-count';
import type { ResolveModel } from './turn';

interface EvalRunDeps {
  db: Db;
  repos: Repositories;
  resolveModel: ResolveModel;
  creditsPer1kTokens: Record<AgentConfig['grade'], number>;
  /** Counts a judge request's input before it is admitted, and its output if it is cut short. */
  tokens: TokenCounter;
  /** `WORKSPACE_RUNNING_TURNS_MAX`: a case's turn waits (retries) while the workspace is at it. */
  maxRunningTurns: number;
}

/** Thrown (retryable) while the workspace runs its most turns: the activity's retries wait for a place. */
const EVAL_TURN_WAITING = 'EvalTurnWaiting';

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** Activities of the `ops` queue for evaluation runs (workflows/eval-run.ts). */
export function createEvalRunActivities(deps: EvalRunDeps) {
  const { repos } = deps;

  async function caseOf(runId: string, caseId: string): Promise<{ run: NonNullable<Awaited<ReturnType<Repositories['evalRuns']['snapshot']>>>; evalCase: EvalCase }> {
    const run = await repos.evalRuns.snapshot({ runId });
    const evalCase = run?.cases.find((c) => c.id === caseId);
    if (!run || !evalCase) throw ApplicationFailure.create({ type: 'EvalRunGone', message: `eval run ${runId} or its case ${caseId} no longer exists`, nonRetryable: true });
    return { run, evalCase };
  }

  return {
    /**
     * Opens the turn that asks message `index` of the case: the first creates the case's
     * conversation, pinned to the run's version. Idempotent: a repeat finds the turn it opened
     * (the conversation's `index`-th). `{ end }` past the last message; `{ refused }` when the
     * case cannot go on (no credits, a requirement not supplied, the agent gone).
     */
    async openEvalTurn({ runId, caseId, index, reserve }: { runId: string; caseId: string; index: number; reserve: number }): Promise<EvalTurnOpening> {
      const { run, evalCase } = await caseOf(runId, caseId);
      if (index >= evalCase.messages.length) return { end: true };
      return deps.db.transaction(async (trx): Promise<EvalTurnOpening> => {
        const existing = await repos.evalRuns.conversationOf({ runId, caseId }, trx);
        if (existing) {
          const turns = await trx('turns').where({ conversation_id: existing.id }).orderBy([{ column: 'started_at' }, { column: 'id' }]).pluck<string[]>('id');
          if (turns[index]) return { turnId: turns[index], conversationId: existing.id };
        }
        const config = await repos.agents.versionConfig({ agentId: run.agent_id, number: run.version_number }, trx);
        if (!config) return { refused: 'the agent or the version no longer exists' };
        const missing = await notReady(repos, { agentId: run.agent_id, config }, trx);
        if (missing) return { refused: `the version requires what the agent does not have (${missing})` };
        const params = resolveParameters(config.parameters, evalCase.parameters);
        if (!params.ok) return { refused: `parameter ${params.name}: ${params.problem}` };
        const conversation = existing
          ? await repos.conversations.get({ workspaceId: run.workspace_id, conversationId: existing.id }, trx)
          : undefined;
        const create = () =>
          repos.conversations.create(
            { workspaceId: run.workspace_id, agentId: run.agent_id, version: run.version_number, parameters: params.values, evalCase: { runId, caseId } },
            trx,
          );
        const opened = await openTurn(
          repos,
          {
            workspaceId: run.workspace_id,
            agentId: run.agent_id,
            conversation: conversation ?? create,
            reserve,
            maxRunningTurns: deps.maxRunningTurns,
            message: evalCase.messages[index]!,
          },
          trx,
        );
        if ('refused' in opened) {
          if (opened.refused === 'running_turns_limit') throw ApplicationFailure.create({ type: EVAL_TURN_WAITING, message: opened.message });
          return { refused: opened.message, ...(opened.credit ? { code: creditStopCode(opened.credit) } : {}) };
        }
        return { turnId: opened.turnId, conversationId: opened.conversation.id };
      });
    },

    /**
     * Grades a case whose turns have ended and stores its result: `error` when a turn did not
     * answer (or none could start), else every check, the judge ones through the model, each call
     * admitted and billed like a model step (evals/judge-call.ts). A judge call the credits do not
     * allow stops the case's judging: it is `error` with the credit code, its other checks graded.
     * A retried grading reuses the outcomes of the calls an earlier attempt finished. Returns the status.
     */
    async gradeEvalCase(input: EvalCaseTurns): Promise<EvalCaseResult['status']> {
      const { run, evalCase } = await caseOf(input.runId, input.caseId);
      const turns = await Promise.all(input.turnIds.map((turnId) => repos.turns.get({ turnId })));
      const credits = round6(turns.reduce((n, t) => n + Number(t?.cost ?? 0), 0));
      const conversationId = (await deps.db('conversations').where({ eval_run_id: input.runId, eval_case_id: input.caseId }).first<{ id: string } | undefined>('id'))?.id ?? null;
      const toolCalls = input.toolCalls;
      const base = { caseId: input.caseId, toolCalls: toolCalls.slice(0, MAX_EVIDENCE_TOOL_CALLS), conversationId };
      const last = input.turnIds.at(-1);
      const ended = last ? await repos.turns.eventsOfTypes({ turnId: last, types: ['done', 'error'] }) : [];
      const terminal = ended[0];
      const store = async (result: EvalCaseResult) => {
        await repos.evalRuns.setResult({ runId: input.runId, result });
        return result.status;
      };
      if (input.refused || !terminal || terminal.type === 'error' || input.turnIds.length < evalCase.messages.length) {
        const why = input.refused ?? (terminal?.type === 'error' ? `turn ${last} ended with an error: ${terminal.message}` : 'the case did not ask all its messages');
        const errorCode = input.refusedCode ?? (terminal?.type === 'error' ? (terminal.code ?? null) : null);
        return store({ ...base, status: 'error', checks: [], reply: null, credits, error: why, errorCode });
      }
      // The reply of the last message's turn: what the user finally got.
      const reply = terminal.type === 'done' ? terminal.reply : '';
      const config = await repos.agents.versionConfig({ agentId: run.agent_id, number: run.version_number });
      const grade = config?.grade ?? 'standard';
      const ctx = Context.current();
      const earlier = await repos.judgeCalls.outcomes({ runId: input.runId, caseId: input.caseId });
      const outcomes: EvalCheckOutcome[] = [];
      let stopped: (JudgeCreditStop & { check: number }) | undefined;
      for (const [i, check] of evalCase.checks.entries()) {
        if (check.kind !== 'judge') {
          outcomes.push(runCheck(check, { reply, toolCalls, credits }));
          continue;
        }
        const known = earlier.get(i);
        if (known) {
          outcomes.push(known);
          continue;
        }
        // Once one call is refused, the case asks no more: the run stops spending here.
        if (!stopped) {
          const judged = await judgeCall(deps, {
            key: { runId: input.runId, caseId: input.caseId, check: i, attempt: ctx.info.attempt },
            workspaceId: run.workspace_id,
            agentId: run.agent_id,
            grade: check.grade ?? grade,
            check,
            conversation: { messages: evalCase.messages, reply },
            signal: ctx.cancellationSignal,
          });
          if ('outcome' in judged) {
            outcomes.push(judged.outcome);
            continue;
          }
          stopped = { ...judged.stopped, check: i };
        }
        outcomes.push({ kind: 'judge', passed: false, detail: `not run: ${stopped.message}` });
      }
      // Every attempt's judge calls: what the workspace paid for this case's grading.
      const judgedCredits = await repos.judgeCalls.costOf({ runId: input.runId, caseId: input.caseId });
      const status = stopped ? 'error' : outcomes.every((o) => o.passed) ? 'passed' : 'failed';
      return store({
        ...base,
        status,
        checks: outcomes,
        reply: reply.length > MAX_EVIDENCE_REPLY_CHARS ? reply.slice(0, MAX_EVIDENCE_REPLY_CHARS) : reply,
        credits: round6(credits + judgedCredits),
        error: stopped ? `check ${stopped.check + 1} (judge) and the judge checks after it were not run: ${stopped.message}` : null,
        errorCode: stopped?.code ?? null,
      });
    },

    /** Ends the run (a run already ended keeps its status). */
    async finishEvalRun({ runId, status, error }: { runId: string; status: Exclude<EvalRun['status'], 'running'>; error?: string }): Promise<void> {
      await repos.evalRuns.finish({ runId, status, ...(error ? { error } : {}) });
    },
  };
}
export type EvalRunActivities = ReturnType<typeof createEvalRunActivities>;
