import Koa from 'koa';
import { AppError } from '../domain/errors';
import { AgentsService } from '../services/agents';
import { KnowledgeService } from '../services/knowledge';
import { ProjectsService } from '../services/projects';
import type { ApiDeps, ApiState } from './context';
import { accessLog } from './middleware/access-log';
import { requireApiKey } from './middleware/auth';
import { errorHandler } from './middleware/errors';
import { requestId } from './middleware/request-id';
import { agentRoutes } from './routes/agents';
import { diagnosticsRoutes } from './routes/diagnostics';
import { healthRoutes } from './routes/health';
import { knowledgeRoutes } from './routes/knowledge';
import { openApiRoute } from './routes/openapi';
import { projectRoutes } from './routes/projects';
import { workspaceRoutes } from './routes/workspace';
import { ApiRouter } from './routing';

/** Every route, each declared once with its contract (see routing.ts). */
export function createRoutes(deps: ApiDeps): ApiRouter {
  const r = new ApiRouter({ authenticate: requireApiKey(deps.repos.apiKeys), bodyLimitBytes: deps.config.BODY_LIMIT_BYTES });
  const agents = new AgentsService(deps);
  healthRoutes(r, deps);
  workspaceRoutes(r, deps);
  diagnosticsRoutes(r, deps);
  agentRoutes(r, agents);
  knowledgeRoutes(r, new KnowledgeService({ repos: deps.repos, agents }));
  projectRoutes(r, new ProjectsService(deps));
  openApiRoute(r, deps.config.baseURL);
  return r;
}

/** The Koa application: middleware in order, then the routes; anything else is a 404. */
export function createApp(deps: ApiDeps): Koa<ApiState> {
  const app = new Koa<ApiState>({ proxy: true });
  app.silent = true; // errors are logged by our handler, not Koa's default printer

  app.use(requestId);
  app.use(accessLog(deps.logger));
  app.use(errorHandler(deps.logger));

  app.use(createRoutes(deps).router.routes());

  // A path served with another method is a 404 too: the spec's statuses have no 405.
  app.use(() => {
    throw new AppError('not_found', 'no such route');
  });
  return app;
}
