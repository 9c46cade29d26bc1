import type { EvalCheck } from '../../domain/evals';
import type { EvalCheckOutcome } from '../../domain/eval-runs';
import type { ModelRequest } from '../model/types';

export type JudgeCheck = Extract<EvalCheck, { kind: 'judge' }>;

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
 * What a judge check asks the grade's model (without the model's name and the signal): score the
 * final reply against the rubric, knowing the user's messages. No tools.
 */
export function judgeRequest(check: JudgeCheck, conversation: { messages: string[]; reply: string }): Omit<ModelRequest, 'model' | 'signal'> {
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
  return { system: SYSTEM, messages: [{ role: 'user', content: prompt }], tools: [], maxOutputTokens: JUDGE_MAX_OUTPUT_TOKENS };
}

/** The check's outcome from the judge's answer: passed at the threshold or above; an answer without a score fails it. */
export function judgeOutcome(check: JudgeCheck, text: string): EvalCheckOutcome {
  const answer = parseJudgeAnswer(text);
  if (!answer) return { kind: 'judge', passed: false, detail: `the judge gave no score from 0 to 1: ${JSON.stringify(text.slice(0, 200))}` };
  const passed = answer.score >= check.threshold;
  const detail = `score ${answer.score} (threshold ${check.threshold})${answer.reason ? `: ${answer.reason.slice(0, 500)}` : ''}`;
  return { kind: 'judge', passed, detail };
}
