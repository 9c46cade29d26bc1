import { Context } from '@temporalio/activity';
import type { Repositories } from '../db/repositories';

export interface AttemptRecordDeps {
  repos: Pick<Repositories, 'workerLiveness'>;
  workerIdentity: string;
}

/**
 * Runs one attempt of a long activity with its task token recorded against this worker, so that
 * if this process dies, a live worker fails the attempt at once (workers/orphan-sweeper.ts) and
 * Temporal retries it, instead of waiting out a heartbeat or start-to-close timeout.
 */
async function withAttemptRecorded<T>(deps: AttemptRecordDeps, run: () => Promise<T>): Promise<T> {
  const { info } = Context.current();
  const workflowId = info.workflowExecution?.workflowId;
  // Only activities of a workflow are recorded (the sweeper clears that workflow's sticky queue).
  if (workflowId === undefined) return run();
  // Written beside the attempt's own first queries, not before them: the record only matters if
  // this process dies during a long call, and an attempt whose record failed still has its
  // heartbeat timeout as the backstop. Neither write is on the activity's path.
  const recorded = deps.repos.workerLiveness.attemptStarted({ taskToken: info.taskToken, worker: deps.workerIdentity, workflowId }).then(
    () => true,
    () => false,
  );
  try {
    return await run();
  } finally {
    // Best effort, after the record is written: one left behind is swept once this worker is gone,
    // and failing an attempt that already completed is refused by Temporal and ignored by the sweeper.
    void recorded.then((ok) => (ok ? deps.repos.workerLiveness.attemptEnded(info.taskToken) : undefined)).catch(() => undefined);
  }
}

/** The same activity, each attempt recorded as above. */
export function recordingAttempts<A extends unknown[], T>(deps: AttemptRecordDeps, activity: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  return (...args: A) => withAttemptRecorded(deps, () => activity(...args));
}
