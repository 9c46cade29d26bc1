import type { Repositories } from '../../db/repositories';
import type { CreditRefusal } from '../../db/repositories/credits';
import { judgeCallId, type JudgeCallKey } from '../../db/repositories/judge-calls';
import type { AgentConfig } from '../../domain/agent';
import type { EvalCheckOutcome } from '../../domain/eval-runs';
import type { TurnErrorCode } from '../../domain/turn-events';
import { type TokenCounter, TokenTally } from '../model/token-count';
import { ModelError } from '../model/types';
import type { ResolveModel } from '../turn';
import { type JudgeCheck, judgeOutcome, judgeRequest } from './judge';

export interface JudgeCallDeps {
  repos: Repositories;
  resolveModel: ResolveModel;
  tokens: TokenCounter;
  creditsPer1kTokens: Record<AgentConfig['grade'], number>;
}

/** A case's judge calls that the credits did not allow: why, for people, and as the case's `errorCode`. */
export interface JudgeCreditStop {
  message: string;
  code: TurnErrorCode;
}

/** The code a credit refusal stops a case with: the same codes a turn stopped for its credits carries. */
export const creditStopCode = (refusal: CreditRefusal): TurnErrorCode => (refusal.refused === 'workspace' ? 'credits_exhausted' : 'credit_cap_reached');

const round = (n: number) => Math.round(n * 100) / 100;

function creditStop(refusal: CreditRefusal, agentId: string): JudgeCreditStop {
  const message =
    refusal.refused === 'workspace'
      ? 'the workspace has no credits left for a judge call'
      : `agent ${agentId} reached its credit cap (${round(refusal.spent)} of ${round(refusal.cap)} credits spent)`;
  return { message, code: creditStopCode(refusal) };
}

/**
 * One judge check's model call, admitted and billed as a model step is. Before the call, the
 * credit rule every model step runs (`credit_check`, db/turns/sql/credits.v1.sql), with the input the request
 * counts as what it needs: the workspace's balance, less what its running turns hold, must cover
 * it, and the agent's cap must not be reached. So a case's judge calls stop at the one that reaches
 * either, which is the most they overshoot by. Billed against the agent as it goes: the input when
 * admitted, what it streamed when it is cut short (a cancel, a failure), the provider's usage when
 * it answers. A request the provider refused before any output is given back, as a step's is.
 * Resolves to the outcome, or to why the credits did not allow the call (nothing was asked).
 */
export async function judgeCall(
  deps: JudgeCallDeps,
  input: {
    key: JudgeCallKey;
    workspaceId: string;
    agentId: string;
    grade: AgentConfig['grade'];
    check: JudgeCheck;
    conversation: { messages: string[]; reply: string };
    signal: AbortSignal;
  },
): Promise<{ outcome: EvalCheckOutcome } | { stopped: JudgeCreditStop }> {
  const { provider, model } = deps.resolveModel(input.grade);
  const request = judgeRequest(input.check, input.conversation);
  const inputTokens = deps.tokens.request(request);
  const refusal = await deps.repos.judgeCalls.begin({
    ...input.key,
    workspaceId: input.workspaceId,
    agentId: input.agentId,
    inputTokens,
    creditsPer1k: deps.creditsPer1kTokens[input.grade],
  });
  if (refusal) return { stopped: creditStop(refusal, input.agentId) };
  const id = judgeCallId(input.key);
  const tally = new TokenTally(deps.tokens);
  let answer: Awaited<ReturnType<typeof provider.stream>>;
  try {
    answer = await provider.stream({ ...request, model, signal: input.signal }, (d) => tally.add(d), (d) => tally.add(d));
  } catch (e) {
    const record = e instanceof ModelError && tally.tokens === 0 ? deps.repos.judgeCalls.waive({ id }) : deps.repos.judgeCalls.progress({ id, outputTokens: tally.tokens });
    await record.catch(() => undefined);
    throw e;
  }
  const outcome = judgeOutcome(input.check, answer.text);
  // The provider's usage when it reported any, else the call's own count (as a model step is billed).
  const usage = answer.usage.inputTokens + answer.usage.outputTokens > 0 ? answer.usage : { inputTokens, outputTokens: tally.tokens };
  await deps.repos.judgeCalls.final({ id, ...usage, outcome });
  return { outcome };
}
