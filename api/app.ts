import Koa from 'koa';
import { AppError } from '../domain/errors';
import { classifyHost } from '../domain/publishing';
import { secretBoxFromConfig } from '../config/secret-box';
import type { ApiDeps, ApiState } from './context';
import { DomainDirectory } from './server/domain-directory';
import { acmeChallenge } from './middleware/acme-challenge';
import { hostedRoutes } from './pages/hosted';
import { accessLog } from './middleware/access-log';
import { agentHosts } from './middleware/agent-hosts';
import { publicCors } from './middleware/public-cors';
import { codecCors } from './middleware/codec-cors';
import { createLimits, type Limits } from './limits';
import { httpMetrics, metricsEndpoint, refusalMetrics } from './metrics';
import { errorHandler } from './middleware/errors';
import { requestId } from './middleware/request-id';
import { composeRoutes } from './composition';

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

  app.use(composeRoutes(deps, directory, limits).router.routes());
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
