import type { Repositories } from '../db/repositories';
import { driveSpace } from '../db/repositories/files';
import { AppError } from '../domain/errors';
import type { FileEntry } from '../domain/file-path';
import { DEFAULT_URL_TTL_SECONDS, type FileGrant, signFileGrant, verifyFileGrant } from '../domain/signed-url';
import { FileSpace } from './file-space';

/**
 * A conversation's file space (its drive): the caller's files, attachments, and what tools write.
 * `url` signs a link that serves one file without an API key until it expires.
 */
export class ConversationFilesService {
  private readonly files: FileSpace;

  constructor(private readonly deps: { repos: Repositories; signingKey: string }) {
    this.files = new FileSpace(deps.repos);
  }

  private async space(workspaceId: string, conversationId: string): Promise<string> {
    if (!(await this.deps.repos.conversations.get({ workspaceId, conversationId }))) {
      throw new AppError('conversation_not_found', 'no such conversation');
    }
    return driveSpace(conversationId);
  }

  async put(workspaceId: string, conversationId: string, path: string, content: Uint8Array, declaredType?: string): Promise<FileEntry> {
    return this.files.put(workspaceId, await this.space(workspaceId, conversationId), path, content, declaredType);
  }

  async list(workspaceId: string, conversationId: string, dir: string): Promise<FileEntry[]> {
    return this.files.list(await this.space(workspaceId, conversationId), dir);
  }

  async read(workspaceId: string, conversationId: string, path: string): Promise<{ entry: FileEntry; content: Buffer }> {
    return this.files.read(await this.space(workspaceId, conversationId), path);
  }

  async remove(workspaceId: string, conversationId: string, path: string): Promise<void> {
    return this.files.remove(await this.space(workspaceId, conversationId), path);
  }

  /** A URL under `origin` that serves the file (which must exist now) for `ttl` seconds without an API key. */
  async url(workspaceId: string, conversationId: string, origin: string, input: { path: string; download?: boolean; ttl?: number }): Promise<string> {
    const space = await this.space(workspaceId, conversationId);
    await this.files.read(space, input.path);
    const ttl = input.ttl ?? DEFAULT_URL_TTL_SECONDS;
    const grant: FileGrant = {
      workspaceId,
      space,
      path: input.path,
      download: input.download ?? false,
      exp: Math.floor(Date.now() / 1000) + ttl,
    };
    return `${origin}/v1/files/${signFileGrant(this.deps.signingKey, grant)}`;
  }

  /** The file a signed token names; expired, altered or removed reads as not found. */
  async redeem(token: string): Promise<{ entry: FileEntry; content: Buffer; download: boolean }> {
    const grant = verifyFileGrant(this.deps.signingKey, token);
    if (!grant) throw new AppError('file_not_found', 'no such file (the link may have expired)');
    const file = await this.files.read(grant.space, grant.path);
    return { ...file, download: grant.download };
  }
}

