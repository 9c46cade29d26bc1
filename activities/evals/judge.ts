import type { EvalCheck } from '../../domain/evals';
import type { EvalCheckOutcome } from '../../domain/eval-runs';
import type { ModelProvider, ModelUsage } from '../model/types';

type JudgeCheck = Extract<EvalCheck, { kind: 'judge' }>;

const SYSTEM = [
  "You grade an AI assistant's final reply against a rubric.",
  'Answer with one JSON object and nothing else: {"score": <a number from 0 to 1>, "reason": "<one short sentence>"}.',
  '1 means the reply fully meets the rubric, 0 that it does not at all.',
].join(' ');

/** The largest reply the judge is shown; the rest is cut (and the judge told so). */
const MAX_JUDGED_REPLY_CHARS = 20_000;
const JUDGE_MAX_OUTPUT_TOKENS = 300;

/**
 * The score in a judge's answer: the `score` of the first JSON object in it, or the number after
 * `score` in looser text. Undefined when there is none in 0..1.
 */
export function parseJudgeAnswer(text: string): { score: number; reason: string } | undefined {
  const object = /\{[\s\S]*\}/.exec(text);
  if (object) {
    try {
      const parsed = JSON.parse(object[0]) as { score?: unknown; reason?: unknown };
      const score = typeof parsed.score === 'string' ? Number(parsed.score) : parsed.score;
      if (typeof score === 'number' && score >= 0 && score <= 1) return { score, reason: typeof parsed.reason === 'string' ? parsed.reason : '' };
    } catch {
      // not JSON: try the looser form below
    }
  }
  const loose = /score\W{0,3}(\d(?:\.\d+)?)/i.exec(text);
  const score = loose ? Number(loose[1]) : NaN;
  return score >= 0 && score <= 1 ? { score, reason: '' } : undefined;
}

/**
 * A judge check: the grade's model scores the final reply against the rubric, knowing the user's
 * messages. Resolves to the outcome and what the call consumed (billed by the caller). A model
 * that fails to answer rejects (the caller's retries, then the case's `error`).
 */
export async function runJudge(
  model: { provider: ModelProvider; model: string },
  check: JudgeCheck,
  conversation: { messages: string[]; reply: string },
  signal?: AbortSignal,
): Promise<{ outcome: EvalCheckOutcome; usage: ModelUsage }> {
  const reply = conversation.reply.length > MAX_JUDGED_REPLY_CHARS ? `${conversation.reply.slice(0, MAX_JUDGED_REPLY_CHARS)}\n[… cut]` : conversation.reply;
  const prompt = [
    'The user said, in order:',
    ...conversation.messages.map((m, i) => `${i + 1}. ${m}`),
    '',
    'The assistant finally replied:',
    '<<<',
    reply,
    '>>>',
    '',
    `Rubric: ${check.rubric}`,
  ].join('\n');
  const result = await model.provider.stream(
    { model: model.model, system: SYSTEM, messages: [{ role: 'user', content: prompt }], tools: [], maxOutputTokens: JUDGE_MAX_OUTPUT_TOKENS, ...(signal ? { signal } : {}) },
    () => undefined,
  );
  const answer = parseJudgeAnswer(result.text);
  if (!answer) {
    return { outcome: { kind: 'judge', passed: false, detail: `the judge gave no score from 0 to 1: ${JSON.stringify(result.text.slice(0, 200))}` }, usage: result.usage };
  }
  const passed = answer.score >= check.threshold;
  const detail = `score ${answer.score} (threshold ${check.threshold})${answer.reason ? `: ${answer.reason.slice(0, 500)}` : ''}`;
  return { outcome: { kind: 'judge', passed, detail }, usage: result.usage };
}
