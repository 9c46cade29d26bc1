import type { ActivityDeps } from '../activities';
import type { TurnMetrics } from '../activities/turn-metrics';
import { createAcmeIssuer } from '../activities/acme';
import { Context } from '@temporalio/activity';
import { createEmbedder, type Embedder } from '../activities/model/embeddings';
import { createModelResolver } from '../activities/model/registry';
import { TokenCounter } from '../activities/model/token-count';
import { createSafeFetch, type SafeFetch } from '../activities/outbound/safe-fetch';
import { createToolRunner } from '../activities/tools/runner';
import { createExtraToolSources, webFetchBuiltIn } from '../activities/tools/sources';
import type { ToolRunner } from '../activities/tools/types';
import type { Config } from '../config/env';
import { secretBoxFromConfig } from '../config/secret-box';
import { temporalKnowledgeIndexer } from '../infra/knowledge-indexer';
import { OUTAGE_TEXT_BUFFER_CHARS, TEXT_FLUSH_MS } from '../config/worker-tuning';
import type { Db } from '../db/connect';
import { createRepositories, type Repositories } from '../db/repositories';
import { credentialSourceFromConfig } from '../infra/credential-source';
import { noSpans, type Spans } from '../infra/tracing/spans';
import { workerIdentity } from './identity';

/**
 * Built-in tools, HTTP tools and MCP servers, reaching the network only through the
 * outbound-safe fetch, with credentials decrypted at call time (SECRETS_KEY).
 */
function toolRunnerFromConfig(config: Config, db: Db, repos: Repositories, fetch: SafeFetch, embedder: Embedder | undefined): ToolRunner {
  const credentials = credentialSourceFromConfig(config, db, repos);
  return createToolRunner({
    repos,
    builtIns: [webFetchBuiltIn(fetch)],
    storageQuotaBytes: config.WORKSPACE_STORAGE_BYTES,
    knowledge: { embedder, creditsPer1kEmbeddingTokens: config.CREDITS_PER_1K_EMBEDDING_TOKENS },
    // Tools run inside activities: the activity's own client signals the space's indexing workflow.
    indexer: temporalKnowledgeIndexer(() => Context.current().client, config.taskQueues.ops),
    sources: createExtraToolSources({ credentials, fetch }),
  });
}

/**
 * The real dependencies, from configuration: what `hosted-agents worker` and `start` run with.
 * `spans` records the model and tool calls when tracing is on (infra/tracing/switch.ts).
 */
export function activityDepsFromConfig(config: Config, db: Db, metrics: TurnMetrics, spans: Spans = noSpans): ActivityDeps {
  const repos = createRepositories(db);
  const fetch = createSafeFetch({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE });
  const box = secretBoxFromConfig(config);
  const embedder = createEmbedder(config);
  return {
    db,
    repos,
    workerIdentity: workerIdentity(),
    resolveModel: createModelResolver(config),
    tools: toolRunnerFromConfig(config, db, repos, fetch, embedder),
    creditsPer1kTokens: { standard: config.CREDITS_PER_1K_TOKENS_STANDARD, premium: config.CREDITS_PER_1K_TOKENS_PREMIUM },
    embedder,
    creditsPer1kEmbeddingTokens: config.CREDITS_PER_1K_EMBEDDING_TOKENS,
    textFlushMs: TEXT_FLUSH_MS,
    dbOutage: { maxMs: config.MODEL_STEP_DB_OUTAGE_MS, maxBufferedChars: OUTAGE_TEXT_BUFFER_CHARS },
    metrics,
    spans,
    tokens: new TokenCounter(),
    maxRunningTurns: config.WORKSPACE_RUNNING_TURNS_MAX,
    erasureBatch: config.END_USER_ERASURE_BATCH,
    historyBudget: {
      tokens: { standard: config.HISTORY_TOKENS_STANDARD, premium: config.HISTORY_TOKENS_PREMIUM },
      maxImageBytes: config.HISTORY_IMAGE_BYTES,
    },
    deploy: {
      credentials: credentialSourceFromConfig(config, db, repos),
      fetch,
      box,
      modelCheckTimeoutMs: 20_000,
    },
    domains: {
      agentsDomain: config.AGENTS_DOMAIN,
      dnsServers: config.DNS_RESOLVER ? config.DNS_RESOLVER.split(',') : [],
      issue:
        config.ACME_DIRECTORY_URL === 'off'
          ? undefined
          : createAcmeIssuer({ repos, box, settings: { directoryUrl: config.ACME_DIRECTORY_URL, email: config.ACME_EMAIL, caFile: config.ACME_CA_FILE } }),
    },
  };
}
