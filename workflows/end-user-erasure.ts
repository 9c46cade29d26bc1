import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { EndUserErasureActivities } from '../activities/end-user-erasure';
import type { ErasureInput } from '../domain/runs/end-user-erasure';

/**
 * A batch deletes up to END_USER_ERASURE_BATCH workflow executions, beating after each: a dead
 * worker's attempt is retried after 15 s. Retried until it succeeds — an erasure is owed, and
 * every attempt only does what is left.
 */
const { eraseEndUserTurns, finishEndUserErasure } = proxyActivities<EndUserErasureActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Temporal deletes a closed execution some time after accepting its deletion (up to its retention
 * timer's jitter): looked at again with backoff, for as long as it takes.
 */
const { confirmTurnWorkflowsGone } = proxyActivities<EndUserErasureActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 1.5, maximumInterval: '30 seconds' },
});

/** Batches before the history is handed to a fresh run (an end user with many thousands of turns). */
const BATCHES_PER_RUN = 200;

/**
 * Erases one end user (docs/security.md, "End users' data: export and erasure"), id
 * `end-user-erasure-<erasureId>`. Its input is the erasure id alone: the end user's id is read
 * from the erasure row by the activities, so this history never holds it. Turns go first, batch by
 * batch (their executions' deletion, then their rows); then the wait until Temporal has deleted
 * every one of those executions; then the rest, the receipt and the row marked done in one
 * transaction — which refuses while a turn was opened meanwhile, sending the loop back to the
 * turns.
 */
export async function eraseEndUserWorkflow(input: ErasureInput): Promise<void> {
  for (let batch = 0; ; batch++) {
    if (batch === BATCHES_PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof eraseEndUserWorkflow>(input);
    if ((await eraseEndUserTurns(input)).more) continue;
    await confirmTurnWorkflowsGone(input);
    if ((await finishEndUserErasure(input)).finished) return;
  }
}
