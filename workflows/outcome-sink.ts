import { proxySinks, type Sinks } from '@temporalio/workflow';
import type { OpsOutcomes, OpsWorkflowName } from '../domain/runs/outcomes';

/**
 * A workflow cannot touch the worker's metrics (no I/O in workflow code): it reports its outcome
 * through a sink, which the worker runs outside the sandbox and not during replay, so a run
 * replayed on another worker is not counted twice (workers/metrics.ts).
 */
export interface OutcomeSinks extends Sinks {
  opsOutcomes: { record<W extends OpsWorkflowName>(workflow: W, outcome: OpsOutcomes[W]): void };
}

export function recordOutcome<W extends OpsWorkflowName>(workflow: W, outcome: OpsOutcomes[W]): void {
  proxySinks<OutcomeSinks>().opsOutcomes.record(workflow, outcome);
}
