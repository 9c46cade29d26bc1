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
  await deps.repos.workerLiveness.attemptStarted({ taskToken: info.taskToken, worker: deps.workerIdentity, workflowId });
  try {
    return await run();
  } finally {
    // Best effort: a record left behind is swept once this worker is gone, and failing an attempt
    // that already completed is refused by Temporal and ignored by the sweeper.
    await deps.repos.workerLiveness.attemptEnded(info.taskToken).catch(() => undefined);
  }
}

/** The same activity, each attempt recorded as above. */
export function recordingAttempts<A extends unknown[], T>(deps: AttemptRecordDeps, activity: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  return (...args: A) => withAttemptRecorded(deps, () => activity(...args));
}
