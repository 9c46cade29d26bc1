import type { Context } from 'koa';
import { z } from 'zod';
import { filePathSchema } from '../../domain/file-path';
import { MAX_URL_TTL_SECONDS } from '../../domain/signed-url';
import type { ConversationFilesService } from '../../services/conversation-files';
import { workspaceOf } from '../context';
import type { ApiRouter } from '../routing';
import { sendFile } from '../pages/send-file';
import { conversationIdParam } from './conversations';
import { fileSpaceRoutes } from './file-space';

export const fileUrlBody = z
  .object({
    path: filePathSchema(),
    download: z.boolean().optional(),
    ttl: z.number().int().min(1).max(MAX_URL_TTL_SECONDS, `at most ${MAX_URL_TTL_SECONDS} seconds (7 days)`).optional(),
  })
  .strict()
  .meta({ id: 'FileUrlRequest', description: '`ttl` in seconds, default 3600, at most 604800; `download` sets Content-Disposition: attachment.' });

export const fileUrlSchema = z.object({ url: z.string() }).meta({ id: 'FileUrl' });

/** Where signed links point: PUBLIC_BASE_URL when set; else the address the caller used (X-Forwarded-Host/-Proto only with TRUST_PROXY=true). */
export const linkOrigin = (ctx: Context, publicBaseURL: string | undefined) => publicBaseURL ?? `${ctx.protocol}://${ctx.host}`;

/** A conversation's drive, and signed links that serve a file without an API key. */
export function conversationFileRoutes(r: ApiRouter, files: ConversationFilesService, publicBaseURL: string | undefined): void {
  fileSpaceRoutes(r, {
    base: '/v1/conversations/:conversationId/files',
    owner: conversationIdParam,
    ownerId: (p) => p.conversationId!,
    noun: 'ConversationFiles',
    readRole: 'reviewer',
    writeRole: 'builder',
    tag: 'Conversation files',
    what: "the conversation's drive",
    ownerNotFound: 'conversation_not_found',
    ops: files,
  });
  r.add(
    {
      method: 'post', path: '/v1/conversations/:conversationId/file-urls', operationId: 'createFileUrl', tag: 'Conversation files', role: 'reviewer',
      summary: 'A signed, expiring URL that serves a file without an API key',
      params: conversationIdParam, body: fileUrlBody,
      response: { status: 200, description: 'The URL', schema: fileUrlSchema },
      errors: ['conversation_not_found', 'file_not_found'],
    },
    async (ctx, { params, body }) => ({ url: await files.url(workspaceOf(ctx), params.conversationId, linkOrigin(ctx, publicBaseURL), body) }),
  );
  r.add(
    {
      method: 'get', path: '/v1/files/:token', operationId: 'signedFile', tag: 'Conversation files', auth: 'none',
      summary: 'Serves the file a signed URL names; expired or altered links answer 404',
      params: z.object({ token: z.string().min(1).max(4000) }),
      response: { status: 200, description: 'The file', contentType: 'application/octet-stream' },
      errors: ['file_not_found'],
    },
    async (ctx, { params }) => {
      const { entry, content, download } = await files.redeem(params.token);
      ctx.set('Cache-Control', 'private, max-age=60');
      sendFile(ctx, entry, content, download);
      return undefined;
    },
  );
}
