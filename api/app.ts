import Koa from 'koa';
import { AppError } from '../domain/errors';
import type { ApiDeps, ApiState } from './context';
import { accessLog } from './middleware/access-log';
import { requireApiKey } from './middleware/auth';
import { errorHandler } from './middleware/errors';
import { jsonBody } from './middleware/json-body';
import { requestId } from './middleware/request-id';
import { diagnosticsRouter } from './routes/diagnostics';
import { healthRouter } from './routes/health';
import { workspaceRouter } from './routes/workspace';

/** The Koa application: middleware in order, then one router a resource. */
export function createApp(deps: ApiDeps): Koa<ApiState> {
  const app = new Koa<ApiState>({ proxy: true });
  app.silent = true; // errors are logged by our handler, not Koa's default printer

  app.use(requestId);
  app.use(accessLog(deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(jsonBody(deps.config.BODY_LIMIT_BYTES));

  const health = healthRouter(deps);
  app.use(health.routes());

  // Everything below needs an API key.
  const authenticated = [workspaceRouter(deps), diagnosticsRouter(deps)];
  const auth = requireApiKey(deps.repos.apiKeys);
  app.use(async (ctx, next) => (ctx.path.startsWith('/v1/') ? auth(ctx, next) : next()));
  for (const router of authenticated) app.use(router.routes());

  // A path served with another method is a 404 too: the spec's statuses have no 405.
  app.use(() => {
    throw new AppError('not_found', 'no such route');
  });
  return app;
}
