import { AppError } from '../../domain/errors';
import { workspaceSchema } from '../../domain/workspace';
import type { ApiDeps } from '../context';
import { workspaceOf } from '../context';
import type { ApiRouter } from '../routing';

/** `GET /v1/workspace`: the caller's Workspace (SDK `ws.get()`). */
export function workspaceRoutes(r: ApiRouter, { repos }: Pick<ApiDeps, 'repos'>): void {
  r.add(
    {
      method: 'get', path: '/v1/workspace', operationId: 'getWorkspace', tag: 'Workspace', role: 'viewer',
      summary: "The API key's workspace",
      response: { status: 200, description: 'The workspace', schema: workspaceSchema.meta({ id: 'Workspace' }) },
      errors: ['workspace_not_found'],
    },
    async (ctx) => {
      const workspace = await repos.workspaces.get({ id: workspaceOf(ctx) });
      if (!workspace) throw new AppError('workspace_not_found', 'the workspace no longer exists');
      return workspace;
    },
  );
}
