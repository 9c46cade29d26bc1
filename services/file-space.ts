import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import { AppError } from '../domain/errors';
import { type FileEntry, MAX_FILE_BYTES } from '../domain/file-path';
import { detectMimeType } from '../domain/mime';
import { type OverQuota, overQuotaMessage } from '../domain/storage-quota';
import { DEFAULT_URL_TTL_SECONDS, type FileGrant, signFileGrant, type UrlSigningKeys } from '../domain/signed-url';

/** 413 `storage_quota_exceeded` (docs/limits.md). */
export function storageQuotaError(over: OverQuota): AppError {
  return new AppError('storage_quota_exceeded', overQuotaMessage(over));
}

/** What `fileUrl` asks for: the path, and `ttl` in seconds (default 3600); `download` makes the link download. */
export interface FileUrlInput {
  path: string;
  download?: boolean;
  ttl?: number;
}

/**
 * The operations every file space shares (agent knowledge, conversation drives): size limit,
 * content-type detection, path conflicts, not-found. Callers check ownership first.
 */
export class FileSpace {
  constructor(
    private readonly repos: Repositories,
    /** WORKSPACE_STORAGE_BYTES; absent: no quota is checked. */
    private readonly storageQuotaBytes?: number,
  ) {}

  private quota(): { quotaBytes?: number } {
    return this.storageQuotaBytes !== undefined ? { quotaBytes: this.storageQuotaBytes } : {};
  }

  /** `trx`: the caller's transaction, e.g. one that holds the space's owner so a concurrent delete cannot orphan the file. */
  async put(
    workspaceId: string,
    space: string,
    path: string,
    content: Uint8Array,
    declaredType?: string,
    trx?: Knex.Transaction,
  ): Promise<FileEntry> {
    if (content.byteLength > MAX_FILE_BYTES) {
      throw new AppError('file_too_large', `files are at most ${MAX_FILE_BYTES} bytes; this one has ${content.byteLength}`);
    }
    const mimeType = detectMimeType(path, content, declaredType);
    const r = await this.repos.files.put({ workspaceId, space, path, content, mimeType, ...this.quota() }, trx);
    if ('conflict' in r) throw new AppError('path_conflict', r.conflict);
    if ('overQuota' in r) throw storageQuotaError(r.overQuota);
    return r.entry;
  }

  /** The entries directly inside `dir`; with `recursive`, every file under it. */
  list(space: string, dir: string, recursive = false): Promise<FileEntry[]> {
    return this.repos.files.list({ space, dir, recursive });
  }

  async read(space: string, path: string): Promise<{ entry: FileEntry; content: Buffer }> {
    const file = await this.repos.files.read({ space, path });
    if (!file) throw new AppError('file_not_found', `no file ${path}`);
    return file;
  }

  async remove(space: string, path: string): Promise<void> {
    if (!(await this.repos.files.remove({ space, path }))) throw new AppError('file_not_found', `no file or folder ${path}`);
  }

  /** A URL under `origin` that serves the file (which must exist now) for `ttl` seconds without an API key (HMAC-signed under `signingKey`). */
  async signedUrl(signingKey: UrlSigningKeys, workspaceId: string, space: string, origin: string, input: FileUrlInput): Promise<string> {
    await this.read(space, input.path);
    const ttl = input.ttl ?? DEFAULT_URL_TTL_SECONDS;
    const grant: FileGrant = { workspaceId, space, path: input.path, download: input.download ?? false, exp: Math.floor(Date.now() / 1000) + ttl };
    return `${origin}/v1/files/${signFileGrant(signingKey, grant)}`;
  }
}
