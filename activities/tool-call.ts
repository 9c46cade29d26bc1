import { Context } from '@temporalio/activity';
import type { Repositories } from '../db/repositories';
import type { TranscriptToolCall, TurnRef } from '../domain/turn-transcript';
import type { ToolRunner } from './tools/types';
import { loadTurnContext } from './turn-context';

export interface ToolCallDeps {
  repos: Repositories;
  tools: ToolRunner;
}

export interface ToolCallResult {
  ok: boolean;
  content: string;
}

/**
 * One tool call, as its own activity: a `tool` start event, the call, then `file` events for
 * what it wrote and a `tool` end event with `ok`. A failing tool is a result the model sees,
 * never a failed turn.
 */
export function createToolCallActivities(deps: ToolCallDeps) {
  return {
    async runTool(input: TurnRef & { call: TranscriptToolCall }): Promise<ToolCallResult> {
      const ctx = Context.current();
      const { turn, conversation, agentId, config } = await loadTurnContext(deps.repos, input.turnId);
      const toolCtx = { workspaceId: turn.workspace_id, agentId, conversationId: conversation.id, turnId: turn.id, agent: config };
      const name = input.call.name;
      await deps.repos.turns.append({ turnId: input.turnId, events: [{ type: 'tool', name, state: 'start' }] });
      let result: ToolCallResult & { files?: string[] };
      try {
        result = await deps.tools.run(toolCtx, input.call, ctx.cancellationSignal);
      } catch (e) {
        result = { ok: false, content: `the tool failed: ${e instanceof Error ? e.message : String(e)}` };
      }
      await deps.repos.turns.append({
        turnId: input.turnId,
        events: [...(result.files ?? []).map((path) => ({ type: 'file' as const, path })), { type: 'tool', name, state: 'end', ok: result.ok }],
      });
      return { ok: result.ok, content: result.content };
    },
  };
}
export type ToolCallActivities = ReturnType<typeof createToolCallActivities>;
