import type { Repositories } from '../db/repositories';
import { conversationDrive } from '../db/repositories/files';
import { AppError } from '../domain/errors';
import type { FileEntry } from '../domain/file-path';
import { type UrlSigningKeys, verifyFileGrant } from '../domain/signed-url';
import type { KnowledgeIndexer } from '../infra/knowledge-indexer';
import { OwnedFiles } from './owned-files';

/**
 * A conversation's file space (its drive): the caller's files, attachments, and what tools write.
 * A project conversation's drive is its project's file space. Signed links of every file space
 * are redeemed here.
 */
export class ConversationFilesService extends OwnedFiles {
  constructor(deps: { repos: Repositories; signingKey: UrlSigningKeys; storageQuotaBytes?: number; indexer?: KnowledgeIndexer }) {
    super(deps, async (workspaceId, conversationId) => {
      const row = await deps.repos.conversations.get({ workspaceId, conversationId });
      if (!row) throw new AppError('conversation_not_found', 'no such conversation');
      return conversationDrive(row);
    });
  }

  /** The file a signed token names; expired, altered or removed reads as not found. */
  async redeem(token: string): Promise<{ entry: FileEntry; content: Buffer; download: boolean }> {
    const grant = verifyFileGrant(this.deps.signingKey, token);
    if (!grant) throw new AppError('file_not_found', 'no such file (the link may have expired)');
    const file = await this.files.read(grant.space, grant.path);
    return { ...file, download: grant.download };
  }
}
