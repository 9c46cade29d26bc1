import { projectConversationSchema, startProjectConversationSchema } from '../../domain/project-conversation';
import type { ProjectConversationsService } from '../../services/project-conversations';
import { mayUseAnyConversation } from '../../domain/conversation-access';
import { actorOf, workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';
import { fileUrlBody, fileUrlSchema, linkOrigin } from './conversation-files';
import { fileSpaceRoutes } from './file-space';
import { projectIdParam } from './projects';

/**
 * Conversations with a project's manager, and the project's files. A project conversation is
 * then reached like any other through `/v1/conversations/:conversationId` (ask, messages, end,
 * files): one conversation id space, one ask route.
 */
export function projectConversationRoutes(r: ApiRouter, projects: ProjectConversationsService, publicBaseURL: string | undefined): void {
  r.add(
    {
      method: 'post', path: '/v1/projects/:projectId/conversations', operationId: 'startProjectConversation', tag: 'Projects', role: 'viewer',
      summary: "Start a conversation with the project's manager, with parameter values for it and its members",
      params: projectIdParam, body: startProjectConversationSchema,
      response: { status: 201, description: 'The conversation', schema: projectConversationSchema },
      errors: ['project_not_found', 'project_archived'],
    },
    (ctx, { params, body }) => projects.start(workspaceOf(ctx), params.projectId, body, actorOf(ctx).id),
  );
  r.add(
    {
      method: 'get', path: '/v1/projects/:projectId/conversations', operationId: 'listProjectConversations', tag: 'Projects', role: 'viewer',
      summary: "The project's conversations with its manager, newest first",
      params: projectIdParam,
      response: { status: 200, description: 'The conversations', schema: listSchema(projectConversationSchema, { id: 'ProjectConversationList' }) },
      errors: ['project_not_found'],
    },
    async (ctx, { params }) => {
      // A viewer lists the conversations they started (domain/conversation-access.ts); reviewers and above, all.
      const actor = actorOf(ctx);
      const startedBy = mayUseAnyConversation(actor, 'read') ? undefined : actor.id;
      return listOf(await projects.list(workspaceOf(ctx), params.projectId, startedBy));
    },
  );
  fileSpaceRoutes(r, {
    base: '/v1/projects/:projectId/files',
    owner: projectIdParam,
    ownerId: (p) => p.projectId!,
    noun: 'ProjectFiles',
    readRole: 'viewer',
    writeRole: 'builder',
    tag: 'Projects',
    what: "the project's file space",
    ownerNotFound: 'project_not_found',
    ops: projects.files,
  });
  r.add(
    {
      method: 'post', path: '/v1/projects/:projectId/file-urls', operationId: 'createProjectFileUrl', tag: 'Projects', role: 'viewer',
      summary: 'A signed, expiring URL that serves a file of the project without an API key',
      params: projectIdParam, body: fileUrlBody,
      response: { status: 200, description: 'The URL', schema: fileUrlSchema },
      errors: ['project_not_found', 'file_not_found'],
    },
    async (ctx, { params, body }) => ({ url: await projects.files.url(workspaceOf(ctx), params.projectId, linkOrigin(ctx, publicBaseURL), body) }),
  );
}
