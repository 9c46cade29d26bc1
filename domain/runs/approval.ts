/**
 * What the turn workflow, its activities and the API share about a call waiting for approval
 * (docs/approvals.md). No imports, so the workflow bundle may take it.
 */

/** How long a call waits for a decision when the agent sets no `approvalTimeoutMs`: 24 hours. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 3_600_000;

/** The signal the API sends a turn's workflow (`turn-<turnId>`) once a decision is recorded. */
export const APPROVAL_SIGNAL = 'approvalDecided';
export interface ApprovalSignal {
  approvalId: string;
}

/** How a waiting call settled: it runs only when `approved`. */
export type ApprovalOutcome = 'approved' | 'denied' | 'expired';

/** A readable duration for the model and the docs: `24 h`, `90 min`, `45 s`. */
function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** What the model sees in place of the result of a call that did not run. */
export function notRunResult(outcome: Exclude<ApprovalOutcome, 'approved'>, note: string | null, timeoutMs: number): string {
  const why = outcome === 'expired' ? `no decision within ${duration(timeoutMs)}, so the call was denied` : 'a person denied this call';
  return `The tool was not run: ${why}.${note ? ` Their note: ${note}` : ''}`;
}
