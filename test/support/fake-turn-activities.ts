import { Context } from '@temporalio/activity';
import type { ToolCallActivities, ToolCallResult } from '../../activities/tool-call';
import type { ModelStepInput, ModelStepResult, TurnActivities } from '../../activities/turn';

type FinishInput = Parameters<TurnActivities['finishTurn']>[0];
type FailInput = Parameters<TurnActivities['failTurn']>[0];
type RunToolInput = Parameters<ToolCallActivities['runTool']>[0];

/** What the fake model and tools answer; a throw fails that attempt as a real activity would. */
export interface FakeTurnScript {
  /** `attempt` is Temporal's attempt number of this model call (1 on the first). */
  modelStep(input: ModelStepInput, attempt: number): ModelStepResult;
  /** Default: every tool succeeds with `result of <name>`. */
  runTool?(input: RunToolInput, attempt: number): ToolCallResult;
  /** Default: ends the turn. */
  failTurn?(input: FailInput): void;
}

/** Every call the workflow made, in order, with its input as the activity received it. */
interface FakeTurnCalls {
  modelStep: Array<ModelStepInput & { attempt: number }>;
  runTool: Array<RunToolInput & { attempt: number }>;
  finishTurn: FinishInput[];
  failTurn: FailInput[];
}

/**
 * The turn workflow's activities as small typed fakes: the same types the worker registers, no
 * database and no model. Tests read `calls` to see what the workflow asked for.
 */
export function fakeTurnActivities(script: FakeTurnScript): { activities: TurnActivities & ToolCallActivities; calls: FakeTurnCalls } {
  const calls: FakeTurnCalls = { modelStep: [], runTool: [], finishTurn: [], failTurn: [] };
  const attempt = () => Context.current().info.attempt;
  const turn: TurnActivities = {
    async modelStep(input) {
      calls.modelStep.push({ ...structuredClone(input), attempt: attempt() });
      return script.modelStep(input, attempt());
    },
    async finishTurn(input) {
      calls.finishTurn.push(structuredClone(input));
    },
    async failTurn(input) {
      calls.failTurn.push(structuredClone(input));
      script.failTurn?.(input);
    },
  };
  const tools: ToolCallActivities = {
    async runTool(input) {
      calls.runTool.push({ ...structuredClone(input), attempt: attempt() });
      return script.runTool ? script.runTool(input, attempt()) : { ok: true, content: `result of ${input.call.name}` };
    },
  };
  return { activities: { ...turn, ...tools }, calls };
}

/** A model answer: some text, the given tool calls (none: a final answer), and token counts. */
export function modelAnswer(text: string, toolCalls: ModelStepResult['toolCalls'] = [], tokens = { inputTokens: 10, outputTokens: 5 }): ModelStepResult {
  return { text, toolCalls, usage: { ...tokens } };
}
