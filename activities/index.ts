import type { Config } from '../config/env';
import type { Db } from '../db/connect';
import { createRepositories, type Repositories } from '../db/repositories';
import { workerIdentity } from '../workers/identity';
import { createModelResolver } from './model/registry';
import { createProbeActivities } from './probe';
import { createToolCallActivities } from './tool-call';
import { noTools, type ToolRunner } from './tools/types';
import { createTurnActivities, type ResolveModel } from './turn';

export interface ActivityDeps {
  db: Db;
  repos: Repositories;
  workerIdentity: string;
  resolveModel: ResolveModel;
  tools: ToolRunner;
  creditsPer1kTokens: { standard: number; premium: number };
  textFlushMs: number;
}

/** The real dependencies, from configuration: what `hosted-agents worker` and `start` run with. */
export function activityDepsFromConfig(config: Config, db: Db): ActivityDeps {
  return {
    db,
    repos: createRepositories(db),
    workerIdentity: workerIdentity(),
    resolveModel: createModelResolver(config),
    tools: noTools,
    creditsPer1kTokens: { standard: config.CREDITS_PER_1K_TOKENS_STANDARD, premium: config.CREDITS_PER_1K_TOKENS_PREMIUM },
    textFlushMs: 20,
  };
}

/** Builds every activity from its dependencies; the worker passes real ones, tests may pass others. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createProbeActivities({ probes: deps.repos.probes, workerIdentity: deps.workerIdentity }),
    ...createTurnActivities(deps),
    ...createToolCallActivities(deps),
  };
}
export type Activities = ReturnType<typeof createActivities>;
