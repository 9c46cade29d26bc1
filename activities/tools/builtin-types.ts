import type { BuiltInToolName } from '../../domain/tool-catalogue';
import type { Step } from '../../domain/turn-events';
import type { ModelTool } from '../model/types';
import type { ToolContext, ToolResult } from './types';

/** A built-in tool: its catalogue name, what the model sees, how its step reads, and what it does. */
export interface BuiltInTool {
  name: BuiltInToolName;
  definition: ModelTool;
  describe(args: Record<string, unknown>): { label: string; kind: Step['kind'] };
  run(ctx: ToolContext, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
}

/** A string argument, or undefined when absent or of another type. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
