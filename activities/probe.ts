import { Context } from '@temporalio/activity';
import type { ProbesRepository } from '../db/repositories/probes';
import type { ProbeInput, ProbeResult } from '../domain/runs/probe';

interface ProbeDeps {
  probes: ProbesRepository;
  workerIdentity: string;
}

export interface ProbeActivities {
  /** Writes a row keyed by the probe id (so retries write it once) and says who wrote it. */
  recordProbe(input: ProbeInput): Promise<ProbeResult>;
}

export function createProbeActivities({ probes, workerIdentity }: ProbeDeps): ProbeActivities {
  return {
    async recordProbe(input) {
      const taskQueue = Context.current().info.taskQueue;
      await probes.record({ id: input.probeId, workspaceId: input.workspaceId, taskQueue, workerIdentity });
      return { probeId: input.probeId, taskQueue, workerIdentity };
    },
  };
}
