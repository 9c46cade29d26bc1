/**
 * What the API, the deployment workflows and their activities share: inputs, results, workflow
 * ids and failure types. Pure declarations, so the workflow bundle may import them.
 */
import type { EvalRunPurpose } from './eval-run';
import { type TurnLimits, TurnFailure } from './turn';

export interface PromoteInput {
  workspaceId: string;
  agentId: string;
  versionNumber: number;
  /**
   * The eval gate's settings (docs/evals.md). Absent in promotions started before the gate
   * existed: those replay and finish without it.
   */
  evals?: { skip: boolean; limits: TurnLimits; turnsQueue: string };
}

/** The eval runs a promotion's gate waits for (none: skipped, or the agent has no cases). */
export interface EvalGatePlan {
  runs: { runId: string; purpose: Exclude<EvalRunPurpose, 'manual'>; versionNumber: number; caseIds: string[] }[];
  passRate?: number | null;
}

/** What the gate said, stored on the version (`agent_versions.deploy_evals`, `VersionItem.evals`). */
export type EvalGateRecord =
  | { skipped: true }
  | { skipped: false; runId: string; baselineRunId: string | null; passRate: number | null; required: number | 'no_regression' | 'all'; passed: boolean };

export interface PromoteResult {
  slug: string;
  versionNumber: number;
}

export interface TestExpiryInput {
  versionId: string;
}

/** Failure types of the promotion workflow (ApplicationFailure.type). */
export const DEPLOY_CHECK_FAILED = 'deploy_check_failed';
/**
 * Which check refused a promotion: the second detail of its `deploy_check_failed` failure (the
 * first is the list of problems). Runs started before it was recorded carry none.
 */
export type DeployCheck = 'health_check' | 'eval_gate';
/** The agent or version to deploy was deleted: the same failure type as a turn's. */
export const DEPLOY_AGENT_GONE = TurnFailure.agentGone;

/** A gate record as the deployment list shows it (`VersionItem.evals`): every field present. */
export function gateView(record: EvalGateRecord) {
  return record.skipped
    ? { skipped: true, runId: null, baselineRunId: null, passRate: null, required: null, passed: true }
    : { skipped: false, runId: record.runId, baselineRunId: record.baselineRunId, passRate: record.passRate, required: record.required, passed: record.passed };
}

/**
 * Ids derived from agent and version, so a repeated call finds the same run (started with the
 * conflict policy USE_EXISTING; a closed run of that id may be started again).
 */
export const promoteWorkflowId = (agentId: string, versionNumber: number) => `deploy-prod-${agentId}-v${versionNumber}`;
export const testExpiryWorkflowId = (agentId: string, versionNumber: number) => `deploy-test-${agentId}-v${versionNumber}`;
