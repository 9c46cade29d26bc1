import { Context } from '@temporalio/activity';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import { createApprovalActivities } from './approvals';
import { recordingAttempts } from './attempt-record';
import { mergeActivities } from './merge';
import { createDelegationActivities } from './delegation';
import { createDeployActivities, type DeployDeps } from './deploy';
import { createDomainActivities, type DomainDeps } from './domains';
import { createEndUserErasureActivities } from './end-user-erasure';
import { createEvalGateActivities } from './eval-gate';
import { createEvalRunActivities } from './eval-run';
import { createKnowledgeIndexActivities } from './knowledge-index';
import type { Embedder } from './model/embeddings';
import { createProbeActivities } from './probe';
import type { OutagePolicy } from './outage-tolerant-writes';
import type { HistoryBudget } from './prompt';
import { createToolCallActivities } from './tool-call';
import { createTriggerRunActivities } from './trigger-run';
import type { Spans } from '../infra/tracing/spans';
import type { ToolRunner } from './tools/types';
import type { TokenCounter } from './model/token-count';
import { createTurnActivities, type ResolveModel } from './turn';
import { createUnstartedTurnActivities } from './unstarted-turn';
import type { TurnMetrics } from './turn-metrics';
import { createWebhookDeliveryActivities } from './webhook-delivery';

/** Everything the activities need; the worker builds real ones (workers/activity-deps.ts), tests may pass others. */
export interface ActivityDeps {
  db: Db;
  repos: Repositories;
  workerIdentity: string;
  resolveModel: ResolveModel;
  tools: ToolRunner;
  creditsPer1kTokens: { standard: number; premium: number };
  /** `EMBEDDINGS_MODEL`'s embedder (knowledge indexing); absent: chunks are stored for full-text search only. */
  embedder?: Embedder | undefined;
  /** `CREDITS_PER_1K_EMBEDDING_TOKENS` (default 0). */
  creditsPer1kEmbeddingTokens?: number;
  textFlushMs: number;
  /** `MODEL_STEP_DB_OUTAGE_MS` and the text a model step may hold meanwhile (activities/outage-tolerant-writes.ts). */
  dbOutage: OutagePolicy;
  historyBudget: HistoryBudget;
  /** Where turns are counted and timed (the worker's registry, workers/metrics.ts). */
  metrics: TurnMetrics;
  /** Child spans of the model and tool calls; `noSpans` when tracing is off (infra/tracing). */
  spans: Spans;
  /** The tokenizer that bills a model step cut short (its rank table is built once per process). */
  tokens: TokenCounter;
  /** `WORKSPACE_RUNNING_TURNS_MAX`: turns started by triggers and delegations are admitted under it too. */
  maxRunningTurns: number;
  /** What deployments need beyond the above: credentials, the outbound-safe fetch, the token box. */
  deploy: Omit<DeployDeps, 'repos' | 'resolveModel'>;
  /** What custom domains need: the resolver, the agents domain, the ACME issuer. */
  domains: Omit<DomainDeps, 'repos' | 'box'>;
  /** `END_USER_ERASURE_BATCH`: turns an end user's erasure removes per batch. */
  erasureBatch: number;
}

/** Custom domains' steps; issuance is recorded like the other long calls, so a dead worker's order is retried at once. */
function domainActivities(deps: ActivityDeps) {
  const domains = createDomainActivities({ repos: deps.repos, box: deps.deploy.box, ...deps.domains });
  return { ...domains, issueCertificate: recordingAttempts(deps, domains.issueCertificate) };
}

/** Builds every activity from its dependencies; the worker passes real ones, tests may pass others. */
export function createActivities(deps: ActivityDeps) {
  const turn = createTurnActivities(deps);
  const toolCall = createToolCallActivities(deps);
  return mergeActivities(
    createProbeActivities({ probes: deps.repos.probes, workerIdentity: deps.workerIdentity }),
    turn,
    // The long ones: if this worker dies mid-call, a live worker fails the attempt at once
    // (a model step records its attempts in its own first and last statements).
    { ...toolCall, runTool: recordingAttempts(deps, toolCall.runTool) },
    createApprovalActivities({ db: deps.db, repos: deps.repos, credentials: deps.deploy.credentials }),
    createTriggerRunActivities({ db: deps.db, repos: deps.repos, maxRunningTurns: deps.maxRunningTurns }),
    createUnstartedTurnActivities({ db: deps.db, repos: deps.repos }),
    createDelegationActivities({ db: deps.db, repos: deps.repos, maxRunningTurns: deps.maxRunningTurns }),
    createDeployActivities({ repos: deps.repos, resolveModel: deps.resolveModel, ...deps.deploy }),
    createEvalGateActivities({ repos: deps.repos }),
    createEvalRunActivities({
      db: deps.db,
      repos: deps.repos,
      resolveModel: deps.resolveModel,
      creditsPer1kTokens: deps.creditsPer1kTokens,
      tokens: deps.tokens,
      maxRunningTurns: deps.maxRunningTurns,
    }),
    createKnowledgeIndexActivities({ repos: deps.repos, embedder: deps.embedder, creditsPer1kEmbeddingTokens: deps.creditsPer1kEmbeddingTokens ?? 0 }),
    // Deliveries use the deployments' outbound-safe fetch and secret box: one of each per worker.
    createWebhookDeliveryActivities({ repos: deps.repos, box: deps.deploy.box, fetch: deps.deploy.fetch, timeoutMs: 10_000 }),
    domainActivities(deps),
    // The executions to delete are in the namespace of the erasure's own workflow, reached with its activity's client.
    createEndUserErasureActivities({
      repos: deps.repos,
      batchSize: deps.erasureBatch,
      temporal: () => ({ client: Context.current().client, namespace: Context.current().info.namespace }),
    }),
  );
}
export type Activities = ReturnType<typeof createActivities>;
