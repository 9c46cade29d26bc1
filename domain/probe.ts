/**
 * The round-trip probe (API → Temporal → worker → PostgreSQL): its input, its result and the one
 * activity it runs. Declared here, apart from both, so that the workflow and the activity import
 * neither each other nor anything with I/O.
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

export interface ProbeActivities {
  /** Writes a row keyed by the probe id (so retries write it once) and says who wrote it. */
  recordProbe(input: ProbeInput): Promise<ProbeResult>;
}
