import type { Config } from '../config/env';
import type { Db } from '../db/connect';
import { createRepositories, type Repositories } from '../db/repositories';
import { workerIdentity } from '../workers/identity';
import { createModelResolver } from './model/registry';
import { createProbeActivities } from './probe';
import { createToolCallActivities } from './tool-call';
import { secretBoxFromConfig } from '../config/secret-box';
import { credentialSourceFromConfig } from '../infra/credential-source';
import { createDeployActivities, type DeployDeps } from './deploy';
import { createSafeFetch } from './tools/outbound';
import { createToolRunner } from './tools/runner';
import { createExtraToolSources, webFetchBuiltIn } from './tools/sources';
import type { SafeFetch, ToolRunner } from './tools/types';
import { createTurnActivities, type ResolveModel } from './turn';

export interface ActivityDeps {
  db: Db;
  repos: Repositories;
  workerIdentity: string;
  resolveModel: ResolveModel;
  tools: ToolRunner;
  creditsPer1kTokens: { standard: number; premium: number };
  textFlushMs: number;
  /** What deployments need beyond the above: credentials, the outbound-safe fetch, the token box. */
  deploy: Omit<DeployDeps, 'repos' | 'resolveModel'>;
}

/**
 * Built-in tools, HTTP tools and MCP servers, reaching the network only through the
 * outbound-safe fetch, with credentials decrypted at call time (SECRETS_KEY).
 */
function toolRunnerFromConfig(config: Config, repos: Repositories, fetch: SafeFetch): ToolRunner {
  const credentials = credentialSourceFromConfig(config, repos);
  return createToolRunner({
    repos,
    builtIns: [webFetchBuiltIn(fetch)],
    sources: createExtraToolSources({ credentials, fetch }),
  });
}

/** The real dependencies, from configuration: what `hosted-agents worker` and `start` run with. */
export function activityDepsFromConfig(config: Config, db: Db): ActivityDeps {
  const repos = createRepositories(db);
  const fetch = createSafeFetch({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE });
  return {
    db,
    repos,
    workerIdentity: workerIdentity(),
    resolveModel: createModelResolver(config),
    tools: toolRunnerFromConfig(config, repos, fetch),
    creditsPer1kTokens: { standard: config.CREDITS_PER_1K_TOKENS_STANDARD, premium: config.CREDITS_PER_1K_TOKENS_PREMIUM },
    textFlushMs: 20,
    deploy: {
      credentials: credentialSourceFromConfig(config, repos),
      fetch,
      box: secretBoxFromConfig(config),
      modelCheckTimeoutMs: 20_000,
    },
  };
}

/** Builds every activity from its dependencies; the worker passes real ones, tests may pass others. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createProbeActivities({ probes: deps.repos.probes, workerIdentity: deps.workerIdentity }),
    ...createTurnActivities(deps),
    ...createToolCallActivities(deps),
    ...createDeployActivities({ repos: deps.repos, resolveModel: deps.resolveModel, ...deps.deploy }),
  };
}
export type Activities = ReturnType<typeof createActivities>;
