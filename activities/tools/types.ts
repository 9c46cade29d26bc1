import type { AgentConfig } from '../../domain/agent';
import type { ModelTool, ModelToolCall } from '../model/types';

/** Where a tool call happens: everything a tool may act on, by reference. */
export interface ToolContext {
  workspaceId: string;
  agentId: string;
  conversationId: string;
  turnId: string;
  agent: AgentConfig;
}

export interface ToolResult {
  ok: boolean;
  /** What the model sees (already size-capped and masked). */
  content: string;
  /** Files the call wrote (each becomes a `file` event). */
  files?: string[];
}

/** Offers tools to the model and runs its calls. Each call runs as its own activity. */
export interface ToolRunner {
  available(ctx: ToolContext): Promise<ModelTool[]>;
  run(ctx: ToolContext, call: ModelToolCall, signal: AbortSignal): Promise<ToolResult>;
}

/** No tools: what a turn offers when the agent names none. */
export const noTools: ToolRunner = {
  available: async () => [],
  run: async (_ctx, call) => ({ ok: false, content: `unknown tool ${call.name}` }),
};
