import { z } from 'zod';
import type { Role } from '../../domain/roles';
import type { ErrorCode } from '../../domain/errors';
import { type FileEntry, fileEntrySchema, filePathSchema, MAX_FILE_BYTES } from '../../domain/file-path';
import { workspaceOf } from '../context';
import { readUpload } from '../body/raw-body';
import { type ApiRouter, listOf, listSchema } from '../routing';
import { sendFile } from '../pages/send-file';

/** What a file space's owner (an agent's knowledge, a conversation's drive) lets callers do. */
interface FileSpaceOps {
  put(workspaceId: string, ownerId: string, path: string, content: Uint8Array, declaredType?: string): Promise<FileEntry>;
  list(workspaceId: string, ownerId: string, dir: string, recursive: boolean): Promise<FileEntry[]>;
  read(workspaceId: string, ownerId: string, path: string): Promise<{ entry: FileEntry; content: Buffer }>;
  remove(workspaceId: string, ownerId: string, path: string): Promise<void>;
}

const listQuery = z
  .object({
    dir: filePathSchema({ allowRoot: true }).optional(),
    // A query string carries text: exactly `true` or `false`, so a typo is a 400, not a silent one-level list.
    recursive: z.enum(['true', 'false']).optional().meta({ description: '`true`: every file at any depth under `dir`, by path, with no folder entries' }),
  })
  .strict();
const fileEntryListSchema = listSchema(fileEntrySchema, { id: 'FileEntryList' });

/**
 * The four routes every file space has, under `base` (e.g. `/v1/agents/:agentId/knowledge`):
 * list (`GET base?dir=&recursive=`), write raw bytes (`PUT base/<path>`), read (`GET base/<path>`) and
 * remove (`DELETE base/<path>`, a folder with everything in it). Paths are relative and confined
 * (domain/file-path.ts); at most 25 MiB a file.
 */
export function fileSpaceRoutes(
  r: ApiRouter,
  opts: {
    base: string;
    owner: z.ZodObject<Record<string, z.ZodString>>;
    ownerId: (params: Record<string, string>) => string;
    /** Operation ids: `list<Noun>`, `write<Noun>File`, `read<Noun>File`, `remove<Noun>File`. */
    noun: string;
    tag: string;
    /** The least roles that may read (list, read) and change (write, remove) its files (routing.ts). */
    readRole: Role;
    writeRole: Role;
    what: string;
    ownerNotFound: ErrorCode;
    ops: FileSpaceOps;
  },
): void {
  const fileParams = opts.owner.extend({ path: filePathSchema() });
  const { ops, ownerId } = opts;
  r.add(
    {
      method: 'get', path: opts.base, operationId: `list${opts.noun}`, tag: opts.tag, role: opts.readRole,
      summary: `Files and folders of ${opts.what} directly inside \`dir\` (default: the top), folders first; \`recursive=true\`: every file under it`,
      params: opts.owner, query: listQuery,
      response: { status: 200, description: 'The entries', schema: fileEntryListSchema },
      errors: [opts.ownerNotFound],
    },
    async (ctx, { params, query }) => listOf(await ops.list(workspaceOf(ctx), ownerId(params), query.dir ?? '', query.recursive === 'true')),
  );
  r.add(
    {
      method: 'put', path: `${opts.base}/*path`, operationId: `write${opts.noun}File`, tag: opts.tag, role: opts.writeRole,
      summary: `Create or replace a file of ${opts.what} (raw bytes, at most ${MAX_FILE_BYTES} bytes)`,
      params: fileParams, rawBody: true, limit: 'uploads',
      response: { status: 200, description: 'The stored file', schema: fileEntrySchema },
      errors: [opts.ownerNotFound, 'file_too_large', 'storage_quota_exceeded', 'path_conflict'],
    },
    async (ctx, { params }) => {
      const workspaceId = workspaceOf(ctx);
      const bytes = await readUpload(ctx, MAX_FILE_BYTES);
      return ops.put(workspaceId, ownerId(params), params.path!, bytes, ctx.get('content-type') || undefined);
    },
  );
  r.add(
    {
      method: 'get', path: `${opts.base}/*path`, operationId: `read${opts.noun}File`, tag: opts.tag, role: opts.readRole,
      summary: `The bytes of a file of ${opts.what}, with its content type`,
      params: fileParams,
      response: { status: 200, description: 'The file', contentType: 'application/octet-stream' },
      errors: [opts.ownerNotFound, 'file_not_found'],
    },
    async (ctx, { params }) => {
      const { entry, content } = await ops.read(workspaceOf(ctx), ownerId(params), params.path!);
      sendFile(ctx, entry, content);
      return undefined;
    },
  );
  r.add(
    {
      method: 'delete', path: `${opts.base}/*path`, operationId: `remove${opts.noun}File`, tag: opts.tag, role: opts.writeRole,
      summary: `Remove a file of ${opts.what}, or a folder and everything in it`,
      params: fileParams,
      response: { status: 204, description: 'Removed' },
      errors: [opts.ownerNotFound, 'file_not_found'],
    },
    (ctx, { params }) => ops.remove(workspaceOf(ctx), ownerId(params), params.path!),
  );
}
