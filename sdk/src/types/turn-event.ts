/** The events of a turn. The server's schemas are in `domain/turn-events.ts`. */

import type { Approvers } from './agent.js';

/** Kind of work a progress step stands for. */
export type StepKind = 'read' | 'write' | 'edit' | 'search' | 'shell' | 'web' | 'data' | 'task' | 'plan' | 'other';

/** One step of an agent's progress within a turn. */
export interface Step {
  /** Step id, stable across progress events of one turn. */
  id: string;
  /** Short human-readable description. */
  label: string;
  /** What kind of work the step is. */
  kind: StepKind;
  /** Where the step is. */
  status: 'active' | 'done' | 'error';
}

/**
 * One event of a turn, discriminated by `type` (the Turn events section of `/docs`). A turn's
 * events end with exactly one `done` or `error`. A failure while iterating a turn (including
 * one of the request itself) arrives as an `error` event, after which the iteration ends.
 *
 * - `start`: the turn exists on the service; `turnId` identifies it.
 * - `progress`: the current list of steps (each event carries the whole list).
 * - `tool`: a tool call started or ended (`ok` tells how it ended). `name` is the name in the
 *   agent's configuration — a built-in's `files.write`, an MCP tool's `server.tool`, an HTTP tool's
 *   own — never the model's (`files_write`, `server__tool`).
 * - `text`: a piece of the reply; see `reset`.
 * - `file`: the agent wrote the file at `path` in the conversation's file space.
 * - `approval`: a tool call that needs a person's approval waits (`status: 'pending'`): decide it
 *   with `turn.approve()` / `turn.deny()` or `ws.approval(approvalId)`; a second `approval` event
 *   of the same id says how it settled (`approved`: the call runs; `denied` or `expired`: the
 *   model is told it did not run).
 * - `done`: the turn succeeded; `reply` is the whole reply.
 * - `error`: the turn failed; `retryable` tells whether asking again may succeed; `code` says
 *   why when the turn stopped for its credits (the text streamed before it is kept).
 */
export type TurnEvent =
  | { type: 'start'; turnId: string }
  | { type: 'progress'; steps: Step[] }
  | { type: 'tool'; name: string; state: 'start' | 'end'; ok?: boolean }
  | {
      type: 'text';
      /** Text to append to the reply being shown. */
      text: string;
      /**
       * When `true`: first drop the text received since the last `tool` event (or since the
       * turn's start), then append `text`. Sent when a retried model call's output differs
       * from what was already streamed. Absent otherwise.
       */
      reset?: true;
    }
  | { type: 'file'; path: string }
  | {
      type: 'approval';
      /** The approval to decide (`ws.approval(approvalId)`). */
      approvalId: string;
      /** The tool as `tool` events name it. */
      tool: string;
      /** The arguments the model gave, secret values masked. */
      arguments: Record<string, unknown>;
      /** Who may decide: an API key (`workspace`), or also the public visitor (`visitor`). */
      approver: Approvers;
      /** `pending` when the call starts waiting; then the outcome, once the turn goes on. */
      status: 'pending' | 'approved' | 'denied' | 'expired';
      /** The decision's note, on an `approved` or `denied` event. */
      note?: string;
    }
  | { type: 'done'; reply: string }
  | {
      type: 'error';
      message: string;
      retryable: boolean;
      /**
       * Present when the turn stopped before a model step for its credits: `credits_exhausted`
       * (the workspace's balance is spent) or `credit_cap_reached` (the agent's cap is reached).
       */
      code?: 'credits_exhausted' | 'credit_cap_reached';
    };
