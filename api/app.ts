import Koa from 'koa';
import { type Config, ConfigError } from '../config/env';
import type { TurnLimits } from '../domain/turn-run';
import { AppError } from '../domain/errors';
import { classifyHost } from '../domain/publishing';
import { parseUrlSigningKeys, URL_SIGNING_KEY_FORMAT, type UrlSigningKeys } from '../domain/signed-url';
import { AgentsService } from '../services/agents';
import { ApprovalsService } from '../services/approvals';
import { ConversationFilesService } from '../services/conversation-files';
import { TriggerSchedules } from '../services/trigger-schedules';
import { ConversationsService } from '../services/conversations';
import { secretBoxFromConfig } from '../config/secret-box';
import { payloadCodecFromConfig } from '../infra/payload-codec';
import { CredentialsService } from '../services/credentials';
import { EndUsersService } from '../services/end-users';
import { OAuthService } from '../services/oauth';
import { DeploymentsService } from '../services/deployments';
import { PublicChatService } from '../services/public-chat';
import { KnowledgeService } from '../services/knowledge';
import { temporalKnowledgeIndexer } from '../turns/knowledge-indexer';
import { ProjectConversationsService } from '../services/project-conversations';
import { ProjectsService } from '../services/projects';
import { CreditCapsService } from '../services/credit-caps';
import { AllowedOriginsService } from '../services/allowed-origins';
import { EvalCasesService } from '../services/eval-cases';
import { EvalRunsService } from '../services/eval-runs';
import { VisitorIdentityService } from '../services/visitor-identity';
import { TurnCancellation } from '../services/turn-cancel';
import { ConversationAccess } from '../services/conversation-access';
import { WebhookRuns } from '../services/webhook-runs';
import { WebhooksService } from '../services/webhooks';
import { CustomDomainsService } from '../services/custom-domains';
import type { ApiDeps, ApiState } from './context';
import { DomainDirectory } from './domain-directory';
import { acmeChallenge } from './middleware/acme-challenge';
import { hostedRoutes } from './hosted';
import { accessLog } from './middleware/access-log';
import { agentHosts } from './middleware/agent-hosts';
import { publicCors } from './middleware/public-cors';
import { codecCors } from './middleware/codec-cors';
import { createLimits, type Limits } from './limits';
import { httpMetrics, metricsEndpoint, refusalMetrics } from './metrics';
import { PublicOrigins } from './public-origins';
import { authenticateRequest } from './middleware/auth';
import { auditRecorder } from './audit';
import { errorHandler } from './middleware/errors';
import { requestId } from './middleware/request-id';
import { agentRoutes } from './routes/agents';
import { approvalRoutes } from './routes/approvals';
import { auditRoutes } from './routes/audit';
import { codecRoutes } from './routes/codec';
import { conversationFileRoutes } from './routes/conversation-files';
import { conversationRoutes } from './routes/conversations';
import { credentialRoutes } from './routes/credentials';
import { endUserRoutes } from './routes/end-users';
import { oauthRoutes } from './routes/oauth';
import { oidcRoutes } from './routes/oidc';
import { OIDC_CALLBACK_PATH, OidcSignInService, oidcSettings } from '../services/oidc-sign-in';
import { deploymentRoutes } from './routes/deployments';
import { diagnosticsRoutes } from './routes/diagnostics';
import { domainRoutes } from './routes/domains';
import { healthRoutes } from './routes/health';
import { knowledgeRoutes } from './routes/knowledge';
import { openApiRoute } from './routes/openapi';
import { creditCapRoutes } from './routes/credit-caps';
import { allowedOriginRoutes } from './routes/allowed-origins';
import { evalCaseRoutes } from './routes/eval-cases';
import { evalRunRoutes } from './routes/eval-runs';
import { projectConversationRoutes } from './routes/project-conversations';
import { projectRoutes } from './routes/projects';
import { publicRoutes } from './routes/public';
import { visitorIdentityRoutes } from './routes/visitor-identity';
import { webhookRoutes } from './routes/webhooks';
import { workspaceRoutes } from './routes/workspace';
import { keyRoutes } from './routes/keys';
import { peopleRoutes } from './routes/people';
import { ApiRouter } from './routing';
import { Keepalives } from './sse/keepalives';

/** Turn limits from configuration; passed to each turn workflow as input. */
function turnLimits(config: Config): TurnLimits {
  return {
    maxSteps: config.TURN_MAX_STEPS,
    modelMaxAttempts: config.MODEL_MAX_ATTEMPTS,
    heartbeatTimeoutMs: config.MODEL_HEARTBEAT_TIMEOUT_MS,
    modelRetryInitialMs: config.MODEL_RETRY_INITIAL_MS,
    turnTimeoutMs: config.TURN_TIMEOUT_MS,
    reserveCredits: config.TURN_RESERVE_CREDITS,
  };
}

function signingKey(config: Config): UrlSigningKeys {
  const ring = config.URL_SIGNING_KEY === undefined ? undefined : parseUrlSigningKeys(config.URL_SIGNING_KEY);
  if (!ring || 'error' in ring) throw new ConfigError('URL_SIGNING_KEY', `required: ${URL_SIGNING_KEY_FORMAT} (signs file URLs)`);
  return ring.keys;
}

/** Every route, each declared once with its contract (see routing.ts). */
function createRoutes(deps: ApiDeps, directory: DomainDirectory, limits: Limits): ApiRouter {
  const r = new ApiRouter({
    authenticate: authenticateRequest({
      apiKeys: deps.keyCache,
      touchKey: (id) => deps.repos.apiKeys.touch({ id }),
      sessions: deps.repos.sessions,
      sessionIdleMs: deps.config.SESSION_IDLE_HOURS * 3_600_000,
      limits,
      onTouchError: (err) => deps.logger.warn({ err }, "an API key's last use could not be recorded"),
    }),
    audit: auditRecorder(deps),
    limit: (name) => limits.route(name),
    bodyLimitBytes: deps.config.BODY_LIMIT_BYTES,
  });
  const schedules = new TriggerSchedules({
    db: deps.db,
    temporal: deps.temporal,
    opsQueue: deps.config.taskQueues.ops,
    turnsQueue: deps.config.taskQueues.turns,
    limits: turnLimits(deps.config),
  });
  const box = secretBoxFromConfig(deps.config);
  const webhooks = new WebhooksService({ repos: deps.repos, box });
  const agents = new AgentsService({ ...deps, schedules, webhooks });
  healthRoutes(r, deps);
  workspaceRoutes(r, deps);
  auditRoutes(r, deps);
  keyRoutes(r, deps);
  peopleRoutes(r, deps);
  diagnosticsRoutes(r, deps, limits);
  agentRoutes(r, agents);
  creditCapRoutes(r, new CreditCapsService({ repos: deps.repos }));
  allowedOriginRoutes(r, new AllowedOriginsService({ repos: deps.repos }));
  evalCaseRoutes(r, new EvalCasesService({ repos: deps.repos, agents }));
  evalRunRoutes(
    r,
    new EvalRunsService({
      repos: deps.repos,
      temporal: deps.temporal,
      agents,
      opsQueue: deps.config.taskQueues.ops,
      turnsQueue: deps.config.taskQueues.turns,
      limits: turnLimits(deps.config),
    }),
  );
  const identity = new VisitorIdentityService({ db: deps.db, repos: deps.repos, box });
  visitorIdentityRoutes(r, identity);
  webhookRoutes(r, {
    webhooks,
    runs: new WebhookRuns({
      db: deps.db,
      repos: deps.repos,
      temporal: deps.temporal,
      opsQueue: deps.config.taskQueues.ops,
      turnsQueue: deps.config.taskQueues.turns,
      limits: turnLimits(deps.config),
      delivery: { maxAttempts: deps.config.WEBHOOK_DELIVERY_ATTEMPTS, initialIntervalMs: deps.config.WEBHOOK_RETRY_INITIAL_MS },
      maxRunningTurns: deps.config.WORKSPACE_RUNNING_TURNS_MAX,
    }),
    limits,
    bodyLimitBytes: deps.config.WEBHOOK_BODY_LIMIT_BYTES,
    publicBaseURL: deps.config.PUBLIC_BASE_URL,
  });
  const storageQuotaBytes = deps.config.WORKSPACE_STORAGE_BYTES;
  const indexer = temporalKnowledgeIndexer(
    () => deps.temporal,
    deps.config.taskQueues.ops,
    (err) => deps.logger.warn({ err }, 'knowledge indexing could not be signalled; the written file stays pending until the next write'),
  );
  knowledgeRoutes(r, new KnowledgeService({ repos: deps.repos, agents, storageQuotaBytes, indexer }));
  projectRoutes(r, new ProjectsService(deps));
  projectConversationRoutes(
    r,
    new ProjectConversationsService({ repos: deps.repos, signingKey: signingKey(deps.config), storageQuotaBytes, indexer }),
    deps.config.PUBLIC_BASE_URL,
  );
  const cancellation = new TurnCancellation({ db: deps.db, repos: deps.repos, temporal: deps.temporal, waitMs: 5000 });
  const conversations = new ConversationsService({
    db: deps.db,
    repos: deps.repos,
    temporal: deps.temporal,
    turnsQueue: deps.config.taskQueues.turns,
    limits: turnLimits(deps.config),
    cancellation,
    maxRunningTurns: deps.config.WORKSPACE_RUNNING_TURNS_MAX,
    storageQuotaBytes,
    indexer,
  });
  conversationFileRoutes(
    r,
    new ConversationFilesService({ repos: deps.repos, signingKey: signingKey(deps.config), storageQuotaBytes, indexer }),
    deps.config.PUBLIC_BASE_URL,
  );
  const stream = {
    keepalives: new Keepalives(deps.config.SSE_KEEPALIVE_MS),
    // Every open stream fails its reads during an outage: one line each at debug, the 503s say it at warn.
    onReadError: (err: unknown) => deps.logger.debug({ err }, 'a turn stream read failed; retrying'),
    opened: () => deps.metrics.streamOpened(),
  };
  conversationRoutes(r, conversations, { repos: deps.repos, hub: deps.hub, stream, cancellation, access: new ConversationAccess(deps.db) });
  const approvals = new ApprovalsService({ repos: deps.repos, temporal: deps.temporal });
  approvalRoutes(r, approvals);
  const oauth = new OAuthService({
    db: deps.db,
    repos: deps.repos,
    box,
    providers: deps.config.oauthProviders,
    redirectUri: deps.config.oauthRedirectURI,
    stateTtlSeconds: deps.config.OAUTH_STATE_TTL_SECONDS,
    logger: deps.logger,
  });
  const credentials = new CredentialsService({ db: deps.db, repos: deps.repos, box, oauth });
  credentialRoutes(r, credentials);
  oauthRoutes(r, oauth, deps.config.oauthRedirectURI, deps.config.OAUTH_STATE_TTL_SECONDS);
  const oidcRedirectUri = `${deps.config.baseURL}${OIDC_CALLBACK_PATH}`;
  oidcRoutes(r, {
    oidc: new OidcSignInService({ db: deps.db, repos: deps.repos, box, settings: oidcSettings(deps.config), redirectUri: oidcRedirectUri, logger: deps.logger }),
    session: { repos: deps.repos, config: deps.config },
    audit: deps.repos.audit,
    redirectUri: oidcRedirectUri,
    baseURL: deps.config.baseURL,
  });
  endUserRoutes(
    r,
    new EndUsersService({ repos: deps.repos, conversations, credentials, oauth, temporal: deps.temporal, opsQueue: deps.config.taskQueues.ops, signingKey: signingKey(deps.config) }),
    deps.config.PUBLIC_BASE_URL,
  );
  deploymentRoutes(
    r,
    new DeploymentsService({
      repos: deps.repos,
      temporal: deps.temporal,
      opsQueue: deps.config.taskQueues.ops,
      box,
      urls: deps.config.agentsURLs,
      testTtlSeconds: deps.config.TEST_DEPLOYMENT_TTL,
      promotionWaitMs: 55_000,
      turnsQueue: deps.config.taskQueues.turns,
      limits: turnLimits(deps.config),
    }),
  );
  domainRoutes(
    r,
    new CustomDomainsService({
      repos: deps.repos,
      temporal: deps.temporal,
      opsQueue: deps.config.taskQueues.ops,
      agentsDomain: deps.config.AGENTS_DOMAIN,
      disabled: domainsDisabled(deps.config),
      dnsDeadlineSeconds: deps.config.DOMAIN_DNS_DEADLINE_SECONDS,
      forget: (domain) => directory.forget(domain),
    }),
  );
  publicRoutes(r, {
    chat: new PublicChatService({ repos: deps.repos, conversations }),
    approvals,
    identity,
    limits,
    origins: new PublicOrigins({
      repo: deps.repos.allowedOrigins,
      ownURLs: [deps.config.baseURL, deps.config.embedURL],
      agentsDomain: deps.config.AGENTS_DOMAIN,
      directory,
    }),
    turns: deps.repos.turns,
    hub: deps.hub,
    stream,
  });
  codecRoutes(r, { codec: payloadCodecFromConfig(deps.config), token: deps.config.CODEC_TOKEN, localUIOrigin: deps.codecLocalUIOrigin });
  openApiRoute(r, deps.config.baseURL);
  return r;
}

/** Why `domains.add` is refused on this server, or undefined when custom domains are on. */
function domainsDisabled(config: Config): string | undefined {
  if (config.HTTPS_PORT === undefined) return 'custom domains are off on this server: the operator sets HTTPS_PORT (the HTTPS listener that serves them)';
  if (config.ACME_DIRECTORY_URL === 'off') return 'custom domains are off on this server: ACME_DIRECTORY_URL is off';
  return undefined;
}

/** The custom domains a replica serves (cached a few seconds); shared by the app and the HTTPS listener. */
export function domainDirectory(deps: ApiDeps): DomainDirectory {
  return new DomainDirectory({ repo: deps.repos.customDomains, box: secretBoxFromConfig(deps.config), ttlMs: 5_000, missTtlMs: 1_000 });
}

/** The API's limits (limits/index.ts); shared by the app and the HTTPS listener's SNI (failed credentials). */
export function limitsOf(deps: ApiDeps): Limits {
  const onError = (err: unknown) => deps.logger.warn({ err }, 'a lease could not be renewed or released; it expires by itself');
  return createLimits({ db: deps.db, leases: deps.repos.leases, config: deps.config, onError });
}

/** The Koa application: middleware in order, then the routes; anything else is a 404. */
export function createApp(deps: ApiDeps, directory: DomainDirectory, limits: Limits): Koa<ApiState> {
  // maxIpsCount 1: the address our proxy appended, not one a client wrote into X-Forwarded-For.
  const app = new Koa<ApiState>({ proxy: deps.config.TRUST_PROXY, maxIpsCount: 1 });
  app.silent = true; // errors are logged by our handler, not Koa's default printer

  const onAgentHost = async (hostname: string) =>
    classifyHost(hostname, deps.config.AGENTS_DOMAIN).kind !== 'none' || (await directory.lookup(hostname)) !== undefined;
  app.use(metricsEndpoint(deps.metrics, deps.config.METRICS_TOKEN, onAgentHost));
  app.use(requestId);
  // Outside the error handler, so the span sees the status it renders.
  if (deps.requestSpan) app.use(deps.requestSpan);
  app.use(accessLog(deps.logger));
  app.use(httpMetrics(deps.metrics));
  // Inside the log and the metrics, so both still count a held refusal's hold; outside the rest.
  app.use(limits.answerAfterHold);
  app.use(publicCors);
  app.use(codecCors(deps.config.CODEC_CORS_ORIGIN));
  app.use(errorHandler(deps.logger));
  app.use(refusalMetrics(deps.metrics));
  app.use(acmeChallenge(deps.repos.customDomains));
  app.use(agentHosts(deps.repos.deployments, deps.config.AGENTS_DOMAIN, directory, limits.failures));

  app.use(createRoutes(deps, directory, limits).router.routes());
  app.use(
    hostedRoutes({
      deployments: deps.repos.deployments,
      allowedOrigins: deps.repos.allowedOrigins,
      box: secretBoxFromConfig(deps.config),
      publicBaseURL: deps.config.PUBLIC_BASE_URL,
    }).routes(),
  );

  // A path served with another method is a 404 too: the API answers no 405 (README: HTTP API).
  app.use(() => {
    throw new AppError('not_found', 'no such route');
  });
  return app;
}
