import { z } from 'zod';
import { fileEntrySchema, filePathSchema, MAX_FILE_BYTES } from '../../domain/file-path';
import type { KnowledgeService } from '../../services/knowledge';
import { workspaceOf } from '../context';
import { readUpload } from '../raw-body';
import { sendFile } from '../send-file';
import { type ApiRouter, listOf } from '../routing';
import { agentIdParam } from './agents';

const fileParams = agentIdParam.extend({ path: filePathSchema() });
const listQuery = z.object({ dir: filePathSchema({ allowRoot: true }).optional() }).strict();

/**
 * An agent's knowledge files: `PUT` raw bytes to a path, list a folder, read, remove.
 * Paths are relative and confined (see domain/file-path.ts); at most 25 MiB a file.
 */
export function knowledgeRoutes(r: ApiRouter, knowledge: KnowledgeService): void {
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/knowledge/*path', operationId: 'putKnowledgeFile', tag: 'Knowledge',
      summary: `Create or replace a knowledge file (raw bytes, at most ${MAX_FILE_BYTES} bytes)`,
      params: fileParams, rawBody: true,
      response: { status: 200, description: 'The stored file', schema: fileEntrySchema },
      errors: ['agent_not_found', 'file_too_large', 'path_conflict'],
    },
    async (ctx, { params }) => {
      const workspaceId = workspaceOf(ctx);
      const bytes = await readUpload(ctx, MAX_FILE_BYTES);
      return knowledge.put(workspaceId, params.agentId, params.path, bytes, ctx.get('content-type') || undefined);
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/knowledge', operationId: 'listKnowledge', tag: 'Knowledge',
      summary: 'Files and folders directly inside `dir` (default: the top), folders first',
      params: agentIdParam, query: listQuery,
      response: { status: 200, description: 'The entries', schema: z.object({ data: z.array(fileEntrySchema) }).meta({ id: 'FileEntryList' }) },
      errors: ['agent_not_found'],
    },
    async (ctx, { params, query }) => listOf(await knowledge.list(workspaceOf(ctx), params.agentId, query.dir ?? '')),
  );
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/knowledge/*path', operationId: 'readKnowledgeFile', tag: 'Knowledge',
      summary: 'The bytes of a knowledge file, with its content type',
      params: fileParams,
      response: { status: 200, description: 'The file', contentType: 'application/octet-stream' },
      errors: ['agent_not_found', 'file_not_found'],
    },
    async (ctx, { params }) => {
      const { entry, content } = await knowledge.read(workspaceOf(ctx), params.agentId, params.path);
      sendFile(ctx, entry, content);
      return undefined;
    },
  );
  r.add(
    {
      method: 'delete', path: '/v1/agents/:agentId/knowledge/*path', operationId: 'removeKnowledgeFile', tag: 'Knowledge',
      summary: 'Remove a knowledge file, or a folder and everything in it',
      params: fileParams,
      response: { status: 204, description: 'Removed' },
      errors: ['agent_not_found', 'file_not_found'],
    },
    (ctx, { params }) => knowledge.remove(workspaceOf(ctx), params.agentId, params.path),
  );
}
