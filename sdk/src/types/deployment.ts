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
