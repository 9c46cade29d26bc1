import { ApplicationFailureCategory } from '@temporalio/common';
import { ApplicationFailure, type ActivityOptions, executeChild, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { DeployActivities } from '../activities/deploy';
import type { EvalGateActivities } from '../activities/eval-gate';
import { evalRunWorkflowId } from '../domain/runs/eval-run';
import type { evalRunWorkflow } from './eval-run';
import { recordOutcome } from './outcome-sink';
import { AgentIdKey, EvalRunIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';
import { summaries } from './summaries';
import { DEPLOY_AGENT_GONE, DEPLOY_CHECK_FAILED, type DeployCheck, type PromoteInput, type PromoteResult, type TestExpiryInput } from '../domain/runs/deploy';

const options: ActivityOptions = {
  // The check waits on the model and on MCP servers (each within its own timeout).
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 5, nonRetryableErrorTypes: [DEPLOY_AGENT_GONE] },
};
const deploy = (summary: string) => proxyActivities<DeployActivities & EvalGateActivities>({ ...options, summary });

/**
 * Promotes a version to production: health-check the candidate while the current production
 * version keeps serving, run its eval gate, then switch the pointer in one transaction. A failed
 * check or gate fails the run with `deploy_check_failed` (its message lists every problem);
 * production is untouched.
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
  if (problems.length > 0) throw refusal('health_check', problems);
  // Promotions started before the gate existed carry no `evals`: they replay and end as they began.
  if (input.evals) {
    const gated = await evalGate(input, input.evals);
    if (gated.length > 0) throw refusal('eval_gate', gated);
  }
  return deploy(summaries.deploySwitch(input.versionNumber)).switchProduction(input);
}

/**
 * A refused promotion: an expected end, so BENIGN — the worker logs it at debug, not as a warning
 * (workflows/failure-log-interceptors.ts) — naming the check that refused it for the API's message.
 */
function refusal(check: DeployCheck, problems: string[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: DEPLOY_CHECK_FAILED,
    message: problems.join('; '),
    nonRetryable: true,
    details: [problems, check],
    category: ApplicationFailureCategory.BENIGN,
  });
}

/**
 * The eval gate (docs/evals.md, "Gating a deploy"): runs the agent's cases against the candidate
 * (and, under the default rule, against production, for the baseline) as child eval runs, in
 * parallel, then applies the rule. Returns the problems (empty: promote).
 */
async function evalGate(input: PromoteInput, evals: NonNullable<PromoteInput['evals']>): Promise<string[]> {
  const { workflowId, runId } = workflowInfo();
  const { evals: _, ...promotion } = input;
  const plan = await deploy(summaries.evalGate(input.versionNumber)).planEvalGate({ ...promotion, origin: `${workflowId}/${runId}`, skip: evals.skip });
  if (plan.runs.length === 0) return [];
  await Promise.all(
    plan.runs.map((run) =>
      executeChild<typeof evalRunWorkflow>('evalRunWorkflow', {
        workflowId: evalRunWorkflowId(run.runId),
        staticSummary: summaries.evalGateRun(run.purpose, run.versionNumber),
        args: [{ runId: run.runId, workspaceId: input.workspaceId, agentId: input.agentId, caseIds: run.caseIds, limits: evals.limits, turnsQueue: evals.turnsQueue }],
        typedSearchAttributes: [
          { key: WorkspaceIdKey, value: input.workspaceId },
          { key: AgentIdKey, value: input.agentId },
          { key: EvalRunIdKey, value: run.runId },
        ],
      }),
    ),
  );
  const candidate = plan.runs.find((r) => r.purpose === 'deploy_candidate')!;
  const baseline = plan.runs.find((r) => r.purpose === 'deploy_baseline');
  return deploy(summaries.evalGate(input.versionNumber)).judgeEvalGate({
    ...promotion,
    candidateRunId: candidate.runId,
    ...(baseline ? { baselineRunId: baseline.runId } : {}),
    passRate: plan.passRate ?? null,
  });
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
