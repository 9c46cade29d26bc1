/**
 * The erasure workflow's contract (workflows/end-user-erasure.ts): pure, no I/O, so the workflow
 * bundle may import it.
 */

/** What an erasure removes, counted per kind. */
export const ERASED_KINDS = [
  'conversations', 'messages', 'turns', 'turnEvents', 'turnWorkflows', 'files', 'secrets', 'connections', 'oauthStates', 'approvals',
] as const;
export type ErasedKind = (typeof ERASED_KINDS)[number];
export type ErasureCounts = Record<ErasedKind, number>;

export const zeroCounts = (): ErasureCounts => Object.fromEntries(ERASED_KINDS.map((k) => [k, 0])) as ErasureCounts;

/** Sums two counts (a batch's into the erasure's so far). */
export function addCounts(a: Partial<ErasureCounts>, b: Partial<ErasureCounts>): ErasureCounts {
  return Object.fromEntries(ERASED_KINDS.map((k) => [k, (a[k] ?? 0) + (b[k] ?? 0)])) as ErasureCounts;
}

/** The erasure workflow's id: the erasure's, never the end user's id nor its digest (Temporal keeps workflow ids in its visibility store). */
export const erasureWorkflowId = (erasureId: string) => `end-user-erasure-${erasureId}`;

/** The erasure workflow's whole input: the row it names holds the end user's id until it is done. */
export interface ErasureInput {
  erasureId: string;
}

/** One batch of an erasure's turns: `more` while turns are left. */
export interface ErasureBatch {
  more: boolean;
}

/** The last step: `finished` false when a turn appeared meanwhile (the workflow goes back to the turns). */
export interface ErasureFinish {
  finished: boolean;
}

/** The confirmation step's retryable failure: Temporal has yet to finish deleting some executions. */
export const TURN_WORKFLOWS_STILL_DELETING = 'turn_workflows_still_deleting';
