import { CancellationScope, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { TurnLimits } from '../../domain/runs/turn';
import type { BareActivities } from './activities';

/**
 * The engine baseline of bench:turns: the shape of workflows/turn.ts (`runTurn`) with nothing
 * inside. Its first workflow task schedules one activity on the workflow's own task queue, inside
 * a cancellation scope whose timeout is a workflow timer (the turn's deadline); the activity's
 * result ends the scope and one local activity records the end. Same activity options as a turn's
 * model step and bookkeeping, so Temporal does the same work; no I/O, no payload worth the name.
 */
export async function bareTurnWorkflow(limits: TurnLimits): Promise<void> {
  const model = proxyActivities<BareActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: limits.heartbeatTimeoutMs,
    retry: { initialInterval: limits.modelRetryInitialMs, backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: limits.modelMaxAttempts },
  });
  const bookkeeping = proxyLocalActivities<BareActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
  });
  const loop = new CancellationScope({ cancellable: true, ...(limits.turnTimeoutMs ? { timeout: limits.turnTimeoutMs } : {}) });
  await loop.run(() => model.modelStep());
  await CancellationScope.nonCancellable(() => bookkeeping.finishTurn());
}
