/**
 * What the API, the manager's turn workflow and its activities share. Pure declarations, so the
 * workflow bundle may import them.
 */
import type { TurnInput } from './turn';

/** The name the manager calls its delegation tool by (also its `tool` events' name). */
export const DELEGATE_TOOL = 'delegate';

/** The input of a manager's turn (`projectTurnWorkflow`). */
export interface ProjectTurnInput extends TurnInput {
  workspaceId: string;
  projectId: string;
}

/** What `startDelegation` did: a member's turn to run as a child workflow, or a result the manager sees at once. */
export type DelegationStart =
  | { child: { turnId: string; conversationId: string; agentId: string; name: string } }
  | { result: { ok: boolean; content: string } };
