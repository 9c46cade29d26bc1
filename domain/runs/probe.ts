/**
 * The round-trip probe (API → Temporal → worker → PostgreSQL): its input and its result, shared by
 * the workflow and the activity (activities/probe.ts).
 */

export interface ProbeInput {
  probeId: string;
  workspaceId: string;
}

export interface ProbeResult {
  probeId: string;
  taskQueue: string;
  workerIdentity: string;
}
