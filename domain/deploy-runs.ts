/**
 * What the API, the deployment workflows and their activities share: inputs, results, workflow
 * ids and failure types. Pure declarations, so the workflow bundle may import them.
 */
import { TurnFailure } from './turn-run';

export interface PromoteInput {
  workspaceId: string;
  agentId: string;
  versionNumber: number;
}

export interface PromoteResult {
  slug: string;
  versionNumber: number;
}

export interface TestExpiryInput {
  versionId: string;
}

/** Failure types of the promotion workflow (ApplicationFailure.type). */
export const DEPLOY_CHECK_FAILED = 'deploy_check_failed';
/** The agent or version to deploy was deleted: the same failure type as a turn's. */
export const DEPLOY_AGENT_GONE = TurnFailure.agentGone;

/**
 * Ids derived from agent and version, so a repeated call finds the same run (started with the
 * conflict policy USE_EXISTING; a closed run of that id may be started again).
 */
export const promoteWorkflowId = (agentId: string, versionNumber: number) => `deploy-prod-${agentId}-v${versionNumber}`;
export const testExpiryWorkflowId = (agentId: string, versionNumber: number) => `deploy-test-${agentId}-v${versionNumber}`;
