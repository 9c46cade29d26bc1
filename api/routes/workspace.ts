import { AppError } from '../../domain/errors';
import { updateWorkspaceBodySchema, workspaceSchema } from '../../domain/workspace';
import type { ApiDeps } from '../context';
import { workspaceOf } from '../context';
import type { ApiRouter } from '../routing';

const workspaceResponse = workspaceSchema.meta({ id: 'Workspace' });

/** `GET /v1/workspace`: the caller's Workspace (SDK `ws.get()`); `PATCH` changes its settings (SDK `ws.update()`). */
export function workspaceRoutes(r: ApiRouter, { repos }: Pick<ApiDeps, 'repos'>): void {
  r.add(
    {
      method: 'get', path: '/v1/workspace', operationId: 'getWorkspace', tag: 'Workspace', role: 'viewer',
      summary: "The API key's workspace",
      response: { status: 200, description: 'The workspace', schema: workspaceResponse },
      errors: ['workspace_not_found'],
    },
    async (ctx) => {
      const workspace = await repos.workspaces.get({ id: workspaceOf(ctx) });
      if (!workspace) throw new AppError('workspace_not_found', 'the workspace no longer exists');
      return workspace;
    },
  );
  r.add(
    {
      method: 'patch', path: '/v1/workspace', operationId: 'updateWorkspace', tag: 'Workspace', role: 'owner',
      summary: "Changes the workspace's settings: `signInDomains`, the e-mail domains whose verified addresses may join by OIDC as viewers",
      body: updateWorkspaceBodySchema,
      response: { status: 200, description: 'The workspace', schema: workspaceResponse },
      errors: ['workspace_not_found'],
    },
    async (ctx, { body }) => {
      const id = workspaceOf(ctx);
      const workspace = body.signInDomains ? await repos.workspaces.setSignInDomains({ id, domains: body.signInDomains }) : await repos.workspaces.get({ id });
      if (!workspace) throw new AppError('workspace_not_found', 'the workspace no longer exists');
      return workspace;
    },
  );
}
