import { Client, Connection } from '@temporalio/client';
import { turnWorkflowId } from '../../domain/runs/turn';

/**
 * Which worker process served each turn, from Temporal's own record: the identity on a turn
 * workflow's first `ActivityTaskStarted` event (the model step's attempt) is the worker that
 * ran it, and our identities begin with the process id (workers/identity.ts). Read after the
 * load window, so the look-ups cost the measured processes nothing.
 */
export interface WorkerAttribution {
  /** Turns whose model step each worker ran, in the order of `workerPids`. */
  perWorker: number[];
  /** Turns whose history named no worker of ours (or could not be read). */
  unattributed: number;
}

const LOOKUP_CONCURRENCY = 8;

export async function attributeTurns(turnIds: string[], temporalAddress: string, workerPids: number[]): Promise<WorkerAttribution> {
  const connection = await Connection.connect({ address: temporalAddress });
  const client = new Client({ connection, namespace: 'default' });
  const perWorker = workerPids.map(() => 0);
  let unattributed = 0;
  const queue = [...turnIds];
  const lookUp = async () => {
    for (let turnId = queue.pop(); turnId !== undefined; turnId = queue.pop()) {
      const history = await client.workflow
        .getHandle(turnWorkflowId(turnId))
        .fetchHistory()
        .catch(() => undefined);
      const identity = history?.events?.find((e) => e.activityTaskStartedEventAttributes != null)?.activityTaskStartedEventAttributes?.identity;
      const index = identity ? workerPids.indexOf(Number(/^(\d+)@/.exec(identity)?.[1])) : -1;
      if (index >= 0) perWorker[index] = (perWorker[index] ?? 0) + 1;
      else unattributed++;
    }
  };
  try {
    await Promise.all(Array.from({ length: LOOKUP_CONCURRENCY }, lookUp));
  } finally {
    await connection.close();
  }
  return { perWorker, unattributed };
}
