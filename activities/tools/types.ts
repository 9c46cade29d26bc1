import type { AgentConfig } from '../../domain/agent';
import type { Step } from '../../domain/turn-events';
import type { ModelTool, ModelToolCall } from '../model/types';

/** Where a tool call happens: everything a tool may act on, by reference. */
export interface ToolContext {
  workspaceId: string;
  agentId: string;
  conversationId: string;
  /** The file space the file tools act on: the conversation's drive, or its project's files. */
  drive: string;
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

/** A tool call ready to run: how it shows (tool event name, step label and kind) and the call itself. */
export interface PreparedCall {
  /** The name in `tool` events: the catalogue name (`files.read`), the HTTP tool's, or `server.tool`. */
  displayName: string;
  label: string;
  kind: Step['kind'];
  /** Runs the call; never throws for a tool's own failure; the content is already masked. */
  run(signal: AbortSignal): Promise<ToolResult>;
}

/** Offers tools to the model and prepares its calls. Each call runs as its own activity. */
export interface ToolRunner {
  /** The tools offered: each definition the model sees, and the name the turn's `tool` events show. */
  available(ctx: ToolContext): Promise<Array<{ definition: ModelTool; displayName: string }>>;
  prepare(ctx: ToolContext, call: ModelToolCall): Promise<PreparedCall>;
}

/** A call of a tool the turn does not offer: a result the model sees. */
export function unknownToolCall(call: ModelToolCall): PreparedCall {
  return {
    displayName: call.name,
    label: `Calling ${call.name}`,
    kind: 'other',
    run: async () => ({ ok: false, content: `there is no tool named ${call.name}` }),
  };
}
