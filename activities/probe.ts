import { Context } from '@temporalio/activity';
import type { ProbesRepository } from '../db/repositories/probes';
import type { ProbeInput, ProbeResult } from '../workflows/probe';

export interface ProbeDeps {
  probes: ProbesRepository;
  workerIdentity: string;
}

export function createProbeActivities({ probes, workerIdentity }: ProbeDeps) {
  return {
    async recordProbe(input: ProbeInput): Promise<ProbeResult> {
      const taskQueue = Context.current().info.taskQueue;
      await probes.record({ id: input.probeId, workspaceId: input.workspaceId, taskQueue, workerIdentity });
      return { probeId: input.probeId, taskQueue, workerIdentity };
    },
  };
}
export type ProbeActivities = ReturnType<typeof createProbeActivities>;
