/**
 * Records the service returns, with the spec's exact field names. Timestamps are strings as
 * sent by the service; ids are strings.
 */

/**
 * A workspace: owner of agents and projects, holding a credit balance. This is the record
 * `ws.get()` resolves to; the handle you call methods on is a `WorkspaceClient`.
 */
export interface Workspace {
  /** Workspace id. */
  id: string;
  /** Display name. */
  name: string;
  /** Credit balance; turns debit it. */
  credits: number;
  /** When the workspace was created. */
  createdAt: string;
}

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
 * One event of a turn, discriminated by `type`: exactly the spec's TurnEvent table. A failure
 * while iterating a turn arrives as an `error` event, after which the iteration ends.
 */
export type TurnEvent =
  | { type: 'start'; turnId: string }
  | { type: 'progress'; steps: Step[] }
  | { type: 'tool'; name: string; state: 'start' | 'end'; ok?: boolean }
  | { type: 'text'; text: string }
  | { type: 'file'; path: string }
  | { type: 'done'; reply: string }
  | { type: 'error'; message: string; retryable: boolean };
