/**
 * How a deployment, domain or eval workflow run ended, as the worker's metrics count it
 * (`hosted_agents_ops_workflow_outcomes_total{workflow,outcome}`, docs/operations.md: Metrics). Fixed sets:
 * they are metric labels.
 */
export interface OpsOutcomes {
  promote: 'promoted' | 'check_failed' | 'failed';
  test_expiry: 'retired';
  domain: 'issued' | 'renewed' | 'failed' | 'removed';
  eval_run: 'completed' | 'cancelled' | 'failed';
}

export type OpsWorkflowName = keyof OpsOutcomes;
