import { ApplicationFailure, type ActivityOptions, proxyActivities, sleep } from '@temporalio/workflow';
import type { DeployActivities } from '../activities/deploy';
import { recordOutcome } from './outcome-sink';
import { summaries } from './summaries';
import { DEPLOY_AGENT_GONE, DEPLOY_CHECK_FAILED, type PromoteInput, type PromoteResult, type TestExpiryInput } from '../domain/deploy-runs';

const options: ActivityOptions = {
  // The check waits on the model and on MCP servers (each within its own timeout).
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 5, nonRetryableErrorTypes: [DEPLOY_AGENT_GONE] },
};
const deploy = (summary: string) => proxyActivities<DeployActivities>({ ...options, summary });

/**
 * Promotes a version to production: health-check the candidate while the current production
 * version keeps serving, then switch the pointer in one transaction. A failed check fails the
 * run with `deploy_check_failed` (its message lists every failed check); production is untouched.
 */
export async function promoteWorkflow(input: PromoteInput): Promise<PromoteResult> {
  try {
    const result = await promote(input);
    recordOutcome('promote', 'promoted');
    return result;
  } catch (err) {
    recordOutcome('promote', err instanceof ApplicationFailure && err.type === DEPLOY_CHECK_FAILED ? 'check_failed' : 'failed');
    throw err;
  }
}

async function promote(input: PromoteInput): Promise<PromoteResult> {
  const problems = await deploy(summaries.deployCheck(input.versionNumber)).checkDeployCandidate(input);
  if (problems.length > 0) {
    throw ApplicationFailure.create({ type: DEPLOY_CHECK_FAILED, message: problems.join('; '), nonRetryable: true, details: [problems] });
  }
  return deploy(summaries.deploySwitch(input.versionNumber)).switchProduction(input);
}

/**
 * The durable timer of a version's test URL: sleeps until it expires, retires it, and goes on while
 * the version has another live test URL (one made again after expiry while this run was closing).
 */
export async function testExpiryWorkflow(input: TestExpiryInput): Promise<void> {
  // Bounded: each round retires at least the deployment it waited for.
  for (let round = 0; round < 1000; round++) {
    const next = await deploy(summaries.retireTests).retireExpiredTestDeployments(input);
    if (next === null) return recordOutcome('test_expiry', 'retired');
    await sleep(Math.max(next - Date.now(), 0) + 250, { summary: summaries.testExpiry });
  }
}
