import Router from '@koa/router';
import { AppError } from '../../domain/errors';
import type { ApiDeps, ApiState } from '../context';
import { workspaceOf } from '../context';

/** `GET /v1/workspace`: the caller's Workspace (SDK `ws.get()`). */
export function workspaceRouter({ repos }: Pick<ApiDeps, 'repos'>): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/v1/workspace' });
  router.get('/', async (ctx) => {
    const workspace = await repos.workspaces.get({ id: workspaceOf(ctx) });
    if (!workspace) throw new AppError('workspace_not_found', 'the workspace no longer exists');
    ctx.body = workspace;
  });
  return router;
}
