import { Context } from '@temporalio/activity';
import type { Repositories } from '../db/repositories';
import type { Step } from '../domain/turn-events';
import type { TranscriptToolCall, TurnRef } from '../domain/turn-transcript';
import type { Spans } from '../infra/tracing/spans';
import type { ToolRunner } from './tools/types';
import { loadAgentTurnContext, toolContext } from './turn-context';

interface ToolCallDeps {
  repos: Repositories;
  tools: ToolRunner;
  /** A child span around each tool call (no-op when tracing is off). */
  spans: Spans;
}

export interface ToolCallResult {
  ok: boolean;
  content: string;
}

/** Replaces the step of `id` (or adds it at the end). */
export function upsert(steps: Step[], step: Step): Step[] {
  return steps.some((s) => s.id === step.id) ? steps.map((s) => (s.id === step.id ? step : s)) : [...steps, step];
}

/**
 * One tool call, as its own activity. Consumers see a `tool` start event and the call as an
 * `active` step in a `progress` event; then `file` events for what it wrote, the step `done` or
 * `error`, and a `tool` end event with `ok`. A failing tool is a result the model sees, never a
 * failed turn. Results are masked (no secret value) before they leave this activity.
 */
export function createToolCallActivities(deps: ToolCallDeps) {
  return {
    async runTool(input: TurnRef & { call: TranscriptToolCall }): Promise<ToolCallResult> {
      const ctx = Context.current();
      const context = await loadAgentTurnContext(deps.repos, input.turnId);
      const { turn } = context;
      const prepared = await deps.tools.prepare(toolContext(context), input.call);
      const step: Step = { id: input.call.id, label: prepared.label, kind: prepared.kind, status: 'active' };
      // A retried attempt (the worker died mid-call) does not announce the call twice.
      const announced = turn.steps.some((s) => s.id === step.id);
      await deps.repos.turns.changeSteps({
        turnId: input.turnId,
        change: (steps) => upsert(steps, step),
        before: announced ? [] : [{ type: 'tool', name: prepared.displayName, state: 'start' }],
      });
      let result: { ok: boolean; content: string; files?: string[] };
      try {
        const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': prepared.displayName, 'hosted_agents.tool_kind': prepared.kind };
        result = await deps.spans.run(`execute_tool ${prepared.displayName}`, attributes, async (span) => {
          const outcome = await prepared.run(ctx.cancellationSignal);
          span.annotate({ 'hosted_agents.tool_ok': outcome.ok });
          return outcome;
        });
      } catch {
        // The runner masks what tools throw; what is left (the credentials to mask against could
        // not be read) is not masked, so its message stays out of the model's view.
        result = { ok: false, content: 'the tool failed, and its result could not be checked for secrets' };
      }
      await deps.repos.turns.changeSteps({
        turnId: input.turnId,
        change: (steps) => upsert(steps, { ...step, status: result.ok ? 'done' : 'error' }),
        before: (result.files ?? []).map((path) => ({ type: 'file' as const, path })),
        after: [{ type: 'tool', name: prepared.displayName, state: 'end', ok: result.ok }],
      });
      return { ok: result.ok, content: result.content };
    },
  };
}
export type ToolCallActivities = ReturnType<typeof createToolCallActivities>;
