import { type Config, ConfigError } from '../config/env';
import { AddressRules } from '../domain/address-policy';
import type { TurnLimits } from '../domain/runs/turn';
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
import { temporalKnowledgeIndexer } from '../infra/knowledge-indexer';
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
import type { ApiDeps } from './context';
import { DomainDirectory } from './server/domain-directory';
import { type Limits } from './limits';
import { PublicOrigins } from './public-origins';
import { authenticateRequest } from './middleware/auth';
import { auditRecorder } from './audit';
import { agentRoutes } from './routes/agents';
import { approvalRoutes } from './routes/approvals';
import { auditRoutes } from './routes/audit';
import { codecRoutes } from './routes/codec';
import { conversationFileRoutes } from './routes/conversation-files';
import { conversationSearchRoutes } from './routes/conversation-search';
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

/**
 * The API's composition root: every service built from its dependencies, and every route, each
 * declared once with its contract (see routing.ts). The Koa app and its middleware chain are in app.ts.
 */
export function composeRoutes(deps: ApiDeps, directory: DomainDirectory, limits: Limits): ApiRouter {
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
  const agents = new AgentsService({ ...deps, schedules, webhooks, outbound: new AddressRules(deps.config.OUTBOUND_ALLOW_PRIVATE) });
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
  const access = new ConversationAccess(deps.db);
  conversationRoutes(r, conversations, { repos: deps.repos, hub: deps.hub, stream, cancellation, access });
  conversationSearchRoutes(r, { repos: deps.repos, access });
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
