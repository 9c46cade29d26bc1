import { z } from 'zod';
import { conversationSummarySchema, searchConversationsQuerySchema } from '../../domain/conversation-search';
import { AppError } from '../../domain/errors';
import type { ConversationAccess } from '../../services/conversation-access';
import type { ApiDeps } from '../context';
import { actorOf, workspaceOf } from '../context';
import { type ApiRouter, listSchema } from '../routing';

/**
 * `GET /v1/conversations`: the workspace's conversations across agents and projects (issue 51,
 * the console's Conversations page). A viewer gets only those the one access rule lets them read
 * (services/conversation-access.ts, applied inside the query, so pages stay full).
 */
export function conversationSearchRoutes(r: ApiRouter, { repos, access }: Pick<ApiDeps, 'repos'> & { access: ConversationAccess }): void {
  r.add(
    {
      method: 'get', path: '/v1/conversations', operationId: 'searchConversations', tag: 'Conversations', role: 'viewer',
      summary:
        'Conversations across agents and projects, newest first, a page at a time: filter by agent, version, project, end user, status, time and text; pass `nextCursor` back as `cursor` for the next page',
      query: searchConversationsQuerySchema,
      response: {
        status: 200,
        description: 'One page; `nextCursor` is null on the last',
        schema: listSchema(conversationSummarySchema, { id: 'ConversationSummaryList' }, { nextCursor: z.string().nullable() }),
      },
    },
    async (ctx, { query }) => {
      const { cursor, limit, ...filters } = query;
      const actor = actorOf(ctx);
      const readable = access.readableFilter(actor, { id: 'conv.id', startedBy: 'conv.started_by', parentTurnId: 'conv.parent_turn_id' });
      const page = await repos.conversationSearch.search({ workspaceId: workspaceOf(ctx), filters, access: readable, cursor, limit });
      if (!page) throw new AppError('invalid_request', 'query.cursor: the nextCursor of an earlier page');
      return page;
    },
  );
}
