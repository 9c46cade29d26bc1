import { z } from 'zod';
import { fileEntrySchema, filePathSchema, MAX_FILE_BYTES } from '../../domain/file-path';
import { MAX_URL_TTL_SECONDS } from '../../domain/signed-url';
import type { ConversationFilesService } from '../../services/conversation-files';
import { workspaceOf } from '../context';
import { readUpload } from '../raw-body';
import { type ApiRouter, listOf } from '../routing';
import { sendFile } from '../send-file';
import { conversationIdParam } from './conversations';

const fileParams = conversationIdParam.extend({ path: filePathSchema() });
const listQuery = z.object({ dir: filePathSchema({ allowRoot: true }).optional() }).strict();
const fileUrlBody = z
  .object({
    path: filePathSchema(),
    download: z.boolean().optional(),
    ttl: z.number().int().min(1).max(MAX_URL_TTL_SECONDS, `at most ${MAX_URL_TTL_SECONDS} seconds (7 days)`).optional(),
  })
  .strict()
  .meta({ id: 'FileUrlRequest', description: '`ttl` in seconds, default 3600, at most 604800; `download` sets Content-Disposition: attachment.' });

/** A conversation's drive, and signed links that serve a file without an API key. */
export function conversationFileRoutes(r: ApiRouter, files: ConversationFilesService, publicBaseURL: string | undefined): void {
  r.add(
    {
      method: 'get', path: '/v1/conversations/:conversationId/files', operationId: 'listConversationFiles', tag: 'Conversation files',
      summary: 'Files and folders directly inside `dir` (default: the top), folders first',
      params: conversationIdParam, query: listQuery,
      response: { status: 200, description: 'The entries', schema: z.object({ data: z.array(fileEntrySchema) }).meta({ id: 'FileEntryList' }) },
      errors: ['conversation_not_found'],
    },
    async (ctx, { params, query }) => listOf(await files.list(workspaceOf(ctx), params.conversationId, query.dir ?? '')),
  );
  r.add(
    {
      method: 'put', path: '/v1/conversations/:conversationId/files/*path', operationId: 'writeConversationFile', tag: 'Conversation files',
      summary: `Create or replace a file (raw bytes, at most ${MAX_FILE_BYTES} bytes)`,
      params: fileParams, rawBody: true,
      response: { status: 200, description: 'The stored file', schema: fileEntrySchema },
      errors: ['conversation_not_found', 'file_too_large', 'path_conflict'],
    },
    async (ctx, { params }) => {
      const workspaceId = workspaceOf(ctx);
      const bytes = await readUpload(ctx, MAX_FILE_BYTES);
      return files.put(workspaceId, params.conversationId, params.path, bytes, ctx.get('content-type') || undefined);
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/conversations/:conversationId/files/*path', operationId: 'readConversationFile', tag: 'Conversation files',
      summary: 'The bytes of a file, with its content type',
      params: fileParams,
      response: { status: 200, description: 'The file', contentType: 'application/octet-stream' },
      errors: ['conversation_not_found', 'file_not_found'],
    },
    async (ctx, { params }) => {
      const { entry, content } = await files.read(workspaceOf(ctx), params.conversationId, params.path);
      sendFile(ctx, entry, content);
      return undefined;
    },
  );
  r.add(
    {
      method: 'delete', path: '/v1/conversations/:conversationId/files/*path', operationId: 'removeConversationFile', tag: 'Conversation files',
      summary: 'Remove a file, or a folder and everything in it',
      params: fileParams,
      response: { status: 204, description: 'Removed' },
      errors: ['conversation_not_found', 'file_not_found'],
    },
    (ctx, { params }) => files.remove(workspaceOf(ctx), params.conversationId, params.path),
  );
  r.add(
    {
      method: 'post', path: '/v1/conversations/:conversationId/file-urls', operationId: 'createFileUrl', tag: 'Conversation files',
      summary: 'A signed, expiring URL that serves a file without an API key',
      params: conversationIdParam, body: fileUrlBody,
      response: { status: 200, description: 'The URL', schema: z.object({ url: z.string() }).meta({ id: 'FileUrl' }) },
      errors: ['conversation_not_found', 'file_not_found'],
    },
    // PUBLIC_BASE_URL when set; else the address the caller used (behind a proxy: X-Forwarded-Host).
    async (ctx, { params, body }) => ({ url: await files.url(workspaceOf(ctx), params.conversationId, publicBaseURL ?? `${ctx.protocol}://${ctx.host}`, body) }),
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
