import type { Repositories } from '../db/repositories';
import type { FileEntry } from '../domain/file-path';
import type { UrlSigningKeys } from '../domain/signed-url';
import { FileSpace, type FileUrlInput } from './file-space';
import type { KnowledgeIndexer } from '../infra/knowledge-indexer';

/** Finds the owner (`ownerId` in `workspaceId`) and names its file space; throws the owner's not-found error. */
export type SpaceOf = (workspaceId: string, ownerId: string) => Promise<string>;

/**
 * The file space of one owner (a conversation's drive, a project's files) as the API exposes it:
 * every call checks the owner first, then acts on its space; `url` signs a link that serves one
 * file without an API key until it expires.
 */
export class OwnedFiles {
  protected readonly files: FileSpace;

  constructor(
    protected readonly deps: { repos: Repositories; signingKey: UrlSigningKeys; storageQuotaBytes?: number; indexer?: KnowledgeIndexer },
    private readonly spaceOf: SpaceOf,
  ) {
    this.files = new FileSpace(deps.repos, deps.storageQuotaBytes);
  }

  /** Writes the file; a project's files are indexed for knowledge search, so their workflow is told. */
  async put(workspaceId: string, ownerId: string, path: string, content: Uint8Array, declaredType?: string): Promise<FileEntry> {
    const space = await this.spaceOf(workspaceId, ownerId);
    const entry = await this.files.put(workspaceId, space, path, content, declaredType);
    if (entry.index?.status === 'pending') await this.deps.indexer?.changed(workspaceId, space);
    return entry;
  }

  async list(workspaceId: string, ownerId: string, dir: string, recursive = false): Promise<FileEntry[]> {
    return this.files.list(await this.spaceOf(workspaceId, ownerId), dir, recursive);
  }

  async read(workspaceId: string, ownerId: string, path: string): Promise<{ entry: FileEntry; content: Buffer }> {
    return this.files.read(await this.spaceOf(workspaceId, ownerId), path);
  }

  async remove(workspaceId: string, ownerId: string, path: string): Promise<void> {
    return this.files.remove(await this.spaceOf(workspaceId, ownerId), path);
  }

  /** A URL under `origin` that serves the file (which must exist now) for `ttl` seconds without an API key. */
  async url(workspaceId: string, ownerId: string, origin: string, input: FileUrlInput): Promise<string> {
    return this.files.signedUrl(this.deps.signingKey, workspaceId, await this.spaceOf(workspaceId, ownerId), origin, input);
  }
}
