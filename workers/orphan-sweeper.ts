import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { OrphanedAttempt, WorkerLivenessRepository } from '../db/repositories/worker-liveness';
import type { Logger } from '../infra/logger';

/** How often a worker stamps its liveness and looks for orphans. */
const TICK_MS = 500;
/**
 * A worker whose stamp is older than this is taken for dead. Four missed stamps: long enough that
 * a busy event loop or a slow query does not look like death, short enough that a killed
 * worker's turns resume within seconds instead of after their heartbeat timeout.
 */
const LIVENESS_LAPSE_MS = 2000;

/** How soon Temporal retries a swept attempt, whatever the activity's backoff says. */
const RETRY_LOST_AFTER_MS = 100;

/** The failure type a swept attempt fails with: retryable, so Temporal retries the activity. */
const WORKER_LOST = 'WorkerLost';

interface SweeperDeps {
  liveness: WorkerLivenessRepository;
  client: Client;
  identity: string;
  logger: Logger;
}

/**
 * Stamps this worker's liveness and fails the running attempts of workers whose liveness lapsed,
 * through their task tokens, so Temporal retries them now instead of at the heartbeat (model
 * calls) or start-to-close (tool calls) timeout. It also clears the workflow's sticky queue, which
 * points at the dead worker, so the next workflow task goes straight to a live one.
 *
 * After a failed stamp, a worker sweeps again only once its own stamps have succeeded for a whole
 * lapse: after a database outage every stamp is stale, and the others must get the chance to stamp
 * again first. (A mistaken sweep costs a retried call, never a repeated event or a double debit:
 * the turn's writer fence and idempotent finish see to that.)
 */
export async function startOrphanSweeper(deps: SweeperDeps): Promise<{ stop(): Promise<void> }> {
  // At start nothing says the stamps of others are stale for a reason of ours, so sweep at once;
  // after a failed stamp (an outage), wait a whole lapse of good stamps first.
  let healthySince: number | undefined = Date.now() - LIVENESS_LAPSE_MS;
  let running: Promise<void> = Promise.resolve();
  let lastComplaint = 0;
  const complain = (err: unknown, what: string) => {
    // A database outage fails every tick; one line every 10 s says so without flooding the log.
    if (Date.now() - lastComplaint < 10_000) return;
    lastComplaint = Date.now();
    deps.logger.warn({ err }, what);
  };

  async function tick(): Promise<void> {
    try {
      await deps.liveness.stamp(deps.identity);
      healthySince ??= Date.now();
    } catch (err) {
      healthySince = undefined;
      complain(err, 'worker liveness: cannot stamp');
      return;
    }
    if (Date.now() - healthySince < LIVENESS_LAPSE_MS) return;
    let orphans: OrphanedAttempt[];
    try {
      orphans = await deps.liveness.takeOrphaned({ me: deps.identity, lapseMs: LIVENESS_LAPSE_MS });
    } catch (err) {
      complain(err, 'worker liveness: cannot look for orphaned attempts');
      return;
    }
    await Promise.all(orphans.map((o) => failOrphan(o)));
  }

  async function failOrphan(o: OrphanedAttempt): Promise<void> {
    const { namespace } = deps.client.options;
    try {
      await deps.client.workflowService.resetStickyTaskQueue({ namespace, execution: { workflowId: o.workflowId } });
    } catch (err) {
      // The workflow may have ended meanwhile; the sticky queue then no longer matters.
      deps.logger.debug({ err, workflowId: o.workflowId }, 'worker liveness: sticky queue not reset');
    }
    try {
      // Retried at once: the backoff is for a struggling dependency, and this attempt's only fault
      // was the worker it ran on.
      const lost = ApplicationFailure.create({ message: `worker ${o.worker} stopped answering`, type: WORKER_LOST, nextRetryDelay: RETRY_LOST_AFTER_MS });
      await deps.client.activity.fail(o.taskToken, lost);
      deps.logger.info({ workflowId: o.workflowId, worker: o.worker }, 'worker liveness: failed an attempt of a lost worker; Temporal retries it');
    } catch (err) {
      // Already completed or timed out: nothing to do.
      deps.logger.debug({ err, workflowId: o.workflowId }, 'worker liveness: attempt already gone');
    }
  }

  let busy = false;
  const once = () => {
    // A tick that outlasts the interval (a slow or unreachable database) is not queued behind.
    if (busy) return;
    busy = true;
    running = tick().finally(() => {
      busy = false;
    });
  };
  await deps.liveness.stamp(deps.identity);
  const timer = setInterval(once, TICK_MS);
  once();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await deps.liveness.forget(deps.identity).catch((err: unknown) => complain(err, 'worker liveness: cannot forget'));
    },
  };
}
