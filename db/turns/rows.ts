// A turn's rows as the lifecycle's statements return them, and their decoding.
import type { AgentConfig } from '../../domain/agent';
import type { Step, TurnEvent } from '../../domain/turn-events';
import type { ConversationRow } from '../repositories/conversations';
import type { CreditRefusal } from '../repositories/credits';

export interface TurnRow {
  id: string;
  conversation_id: string;
  workspace_id: string;
  status: TurnStatus;
  last_seq: number;
  /** Credits held back from the workspace's balance while it runs. */
  reserved: number;
  agent_id: string | null;
  writer: string | null;
  steps: Step[];
  /** What the turn cost once it ended (pg's decimal, as text); null while it runs. */
  cost: string | null;
  started_at: Date;
  finished_at: Date | null;
}

/** `cancelled`: `POST /v1/turns/:turnId/cancel` or the end of its conversation stopped it. */
export type TurnStatus = 'running' | 'done' | 'error' | 'cancelled';

/** A turn with its conversation and the configuration of its pinned agent version (none for a project's, or when gone). */
export interface TurnWithContext {
  turn: TurnRow;
  conversation: ConversationRow;
  version: AgentConfig | undefined;
}

/** The row `withContext` and `claimStep` select: rows as JSON, so their dates are strings. */
export interface ContextRow {
  turn: Record<string, unknown>;
  conversation: Record<string, unknown>;
  config: AgentConfig | null;
}

function withDates<T>(row: Record<string, unknown>, keys: string[]): T {
  const out: Record<string, unknown> = { ...row };
  for (const k of keys) if (typeof out[k] === 'string') out[k] = new Date(out[k] as string);
  return out as T;
}

export function decodeContext(row: ContextRow): TurnWithContext {
  return {
    turn: withDates<TurnRow>(row.turn, ['started_at', 'finished_at']),
    conversation: withDates<ConversationRow>(row.conversation, ['started_at', 'ended_at']),
    version: row.config ?? undefined,
  };
}

export interface AdmitRow {
  refused: null | 'turn_in_progress' | 'running_turns_limit' | 'workspace' | 'agent_cap';
  running_id: string | null;
  running_count: string | null;
  available: string | null;
  cap: string | null;
  spent: string | null;
  turn_id: string | null;
}

/** What `admit` decided: the running turn's id (when it inserted one), or why not. */
export type TurnAdmitted =
  | { admitted: true; turnId: string | undefined }
  | { admitted: false; refused: 'turn_in_progress'; runningId: string | undefined }
  | { admitted: false; refused: 'running_turns_limit'; count: number }
  | { admitted: false; refused: 'credits'; credit: CreditRefusal };

export interface SettleRow {
  settled: boolean;
  grade: AgentConfig['grade'];
  started_at: Date;
  input_tokens: string | null;
  output_tokens: string | null;
  cost: string | null;
}

/** What settling a turn did: whether this call ended it, and what it billed at which grade. */
export interface TurnSettlement {
  settled: boolean;
  grade: AgentConfig['grade'];
  startedAt: Date;
  usage: { inputTokens: number; outputTokens: number };
  cost: number;
}

export interface StoredEvent {
  seq: number;
  event: TurnEvent;
}
