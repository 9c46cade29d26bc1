import type { Repositories } from '../db/repositories';
import { knowledgeSpace } from '../db/repositories/files';
import { AppError } from '../domain/errors';
import { type FileEntry, MAX_FILE_BYTES } from '../domain/file-path';
import { detectMimeType } from '../domain/mime';
import type { AgentsService } from './agents';

/** An agent's knowledge file space. Not versioned: changing it publishes no version. */
export class KnowledgeService {
  constructor(private readonly deps: { repos: Repositories; agents: AgentsService }) {}

  async put(workspaceId: string, agentId: string, path: string, content: Uint8Array, declaredType?: string): Promise<FileEntry> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    if (content.byteLength > MAX_FILE_BYTES) {
      throw new AppError('file_too_large', `files are at most ${MAX_FILE_BYTES} bytes; this one has ${content.byteLength}`);
    }
    const r = await this.deps.repos.files.put({
      workspaceId,
      space: knowledgeSpace(agentId),
      path,
      content,
      mimeType: detectMimeType(path, content, declaredType),
    });
    if ('conflict' in r) throw new AppError('path_conflict', r.conflict);
    return r.entry;
  }

  async list(workspaceId: string, agentId: string, dir: string): Promise<FileEntry[]> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    return this.deps.repos.files.list({ space: knowledgeSpace(agentId), dir });
  }

  async read(workspaceId: string, agentId: string, path: string): Promise<{ entry: FileEntry; content: Buffer }> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    const file = await this.deps.repos.files.read({ space: knowledgeSpace(agentId), path });
    if (!file) throw new AppError('file_not_found', `no file ${path}`);
    return file;
  }

  async remove(workspaceId: string, agentId: string, path: string): Promise<void> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    if (!(await this.deps.repos.files.remove({ space: knowledgeSpace(agentId), path }))) {
      throw new AppError('file_not_found', `no file or folder ${path}`);
    }
  }
}
