/**
 * An agent's versions as deployments: the deployment list and the answers of the deploy calls.
 * The server's schemas are in `domain/agent.ts` (versions) and `domain/publishing.ts`.
 */

/** One version in the deployment list of an agent (`ws.agents.versions(agentId)`). */
export interface VersionItem {
  /** Version id (prefix `ver_`). */
  id: string;
  /** Version number, as in `AgentRecord.version`. */
  number: number;
  /** When the version was deployed, or published if it never was. */
  deployedAt: string;
  /** True for the one version serving production. */
  isProd: boolean;
  /** What the eval gate said at the version's latest promotion; absent when it has none. */
  evals?: VersionEvals;
}

/** The eval gate's verdict on a promotion (`VersionItem.evals`, docs/evals.md). */
export interface VersionEvals {
  /** Promoted with `skipEvals: true`: no eval ran. */
  skipped: boolean;
  /** The candidate's eval run. */
  runId: string | null;
  /** Production's eval run the default rule compared with (null: none). */
  baselineRunId: string | null;
  /** The share of cases (0 to 1) that passed on the candidate. */
  passRate: number | null;
  /** The rule: the agent's pass rate, `no_regression` (no case that passes on production may fail), or `all` (first deploy). */
  required: number | 'no_regression' | 'all' | null;
  /** Whether the gate let the version through. */
  passed: boolean;
}

/** The answer of `ws.agents.deployToTest(versionId)`. */
export interface TestDeployment {
  /** The ephemeral URL serving the version's chat page, for trying it out (not for end users). */
  url: string;
  /** When the URL stops working. */
  expiresAt: string;
}

/** The answer of `ws.agents.deployToProd(versionId)`. */
export interface ProdDeployment {
  /** The agent's production URL; the same across deploys and rollbacks. */
  url: string;
  /** Number of the version now in production, as in `VersionItem.number` and `AgentRecord.version`. */
  versionNumber: number;
}
