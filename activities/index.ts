import type { Repositories } from '../db/repositories';
import { createProbeActivities } from './probe';

export interface ActivityDeps {
  repos: Repositories;
  workerIdentity: string;
}

/** Builds every activity from its dependencies; the worker passes real ones, tests may pass fakes. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createProbeActivities({ probes: deps.repos.probes, workerIdentity: deps.workerIdentity }),
  };
}
export type Activities = ReturnType<typeof createActivities>;
