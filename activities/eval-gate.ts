import type { Repositories } from '../db/repositories';
import type { EvalGatePlan, EvalGateRecord, PromoteInput } from '../domain/runs/deploy';
import type { EvalRun } from '../domain/eval-runs';

interface EvalGateDeps {
  repos: Repositories;
}

const percent = (n: number) => `${Math.round(n * 100)} %`;

/** What failed first in a case, for the refusal's message. */
function why(run: EvalRun, caseId: string): string {
  const c = run.cases.find((x) => x.caseId === caseId);
  if (!c) return 'not run';
  if (c.status === 'error') return c.error ?? 'error';
  return c.checks.find((k) => !k.passed)?.detail ?? c.status;
}

/**
 * The rule `deployToProd` applies to the candidate's eval run (docs/evals.md, "Gating a deploy"):
 * with a pass rate set on the agent, the candidate's share of passing cases must reach it; else
 * every case that passes on the production version must pass on the candidate (with no production
 * version yet, every case). One line per problem, naming the failing cases.
 */
export function gateProblems(candidate: EvalRun, baseline: EvalRun | undefined, passRate: number | null): string[] {
  if (candidate.status !== 'completed') return [`the eval run ${candidate.id} of the candidate ended ${candidate.status}${candidate.error ? `: ${candidate.error}` : ''}`];
  const failing = candidate.cases.filter((c) => c.status !== 'passed').map((c) => c.caseId);
  const describe = (ids: string[]) => ids.map((id) => `${id} (${why(candidate, id)})`).join('; ');
  if (passRate !== null) {
    const rate = candidate.summary.passRate ?? 0;
    return rate >= passRate ? [] : [`evals: ${percent(rate)} of the cases passed, the agent requires ${percent(passRate)} (eval run ${candidate.id}); failing: ${describe(failing)}`];
  }
  if (!baseline) return failing.length === 0 ? [] : [`evals: every case must pass before the first deploy (eval run ${candidate.id}); failing: ${describe(failing)}`];
  if (baseline.status !== 'completed') return [`the eval run ${baseline.id} of the production version ended ${baseline.status}${baseline.error ? `: ${baseline.error}` : ''}`];
  const passedBefore = new Set(baseline.cases.filter((c) => c.status === 'passed').map((c) => c.caseId));
  const broke = failing.filter((id) => passedBefore.has(id));
  return broke.length === 0
    ? []
    : [`evals: cases that pass on production version ${baseline.versionNumber} fail on version ${candidate.versionNumber} (eval run ${candidate.id}): ${describe(broke)}`];
}

/** The eval gate of a promotion (workflows/deploy.ts): plan its runs, then judge them. */
export function createEvalGateActivities({ repos }: EvalGateDeps) {
  return {
    /**
     * The runs the gate needs: none when skipped (recorded on the version) or when the agent has
     * no cases; else the candidate's, plus production's under the default rule. Idempotent per
     * promotion run (`origin`): a retry finds the runs it made.
     */
    async planEvalGate(input: PromoteInput & { origin: string; skip: boolean }): Promise<EvalGatePlan> {
      if (input.skip) {
        await repos.deployments.recordEvals({ agentId: input.agentId, number: input.versionNumber, record: { skipped: true } });
        return { runs: [] };
      }
      const cases = await repos.evalCases.of({ agentId: input.agentId });
      const gate = await repos.evalRuns.gate({ agentId: input.agentId });
      if (cases.length === 0 || !gate) return { runs: [] };
      const prod = await repos.deployments.prodVersion({ agentId: input.agentId });
      const make = (purpose: 'deploy_candidate' | 'deploy_baseline', versionNumber: number) =>
        repos.evalRuns.create({ workspaceId: input.workspaceId, agentId: input.agentId, versionNumber, purpose, origin: `${input.origin}/${purpose}`, cases });
      const caseIds = cases.map((c) => c.id);
      const candidate = await make('deploy_candidate', input.versionNumber);
      const runs: EvalGatePlan['runs'] = [{ runId: candidate.id, purpose: 'deploy_candidate', versionNumber: input.versionNumber, caseIds }];
      if (gate.passRate === null && prod !== null && prod !== input.versionNumber) {
        const baseline = await make('deploy_baseline', prod);
        runs.push({ runId: baseline.id, purpose: 'deploy_baseline', versionNumber: prod, caseIds });
      }
      return { runs, passRate: gate.passRate };
    },

    /** Applies the rule to the finished runs, records the verdict on the version; the problems (empty: promote). */
    async judgeEvalGate(input: PromoteInput & { candidateRunId: string; baselineRunId?: string; passRate: number | null }): Promise<string[]> {
      const candidate = await repos.evalRuns.get({ runId: input.candidateRunId });
      const baseline = input.baselineRunId ? await repos.evalRuns.get({ runId: input.baselineRunId }) : undefined;
      if (!candidate) return [`the eval run ${input.candidateRunId} is gone`];
      const problems = gateProblems(candidate, baseline, input.passRate);
      const record: EvalGateRecord = {
        skipped: false,
        runId: candidate.id,
        baselineRunId: baseline?.id ?? null,
        passRate: candidate.summary.passRate,
        required: input.passRate ?? (baseline ? 'no_regression' : 'all'),
        passed: problems.length === 0,
      };
      await repos.deployments.recordEvals({ agentId: input.agentId, number: input.versionNumber, record });
      return problems;
    },
  };
}
export type EvalGateActivities = ReturnType<typeof createEvalGateActivities>;
