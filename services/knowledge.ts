import type { Repositories } from '../db/repositories';
import { knowledgeSpace } from '../db/repositories/files';
import type { FileEntry } from '../domain/file-path';
import type { AgentsService } from './agents';
import { FileSpace } from './file-space';
import type { KnowledgeIndexer } from '../infra/knowledge-indexer';

/** An agent's knowledge file space. Not versioned: changing it publishes no version. */
export class KnowledgeService {
  private readonly files: FileSpace;

  constructor(private readonly deps: { repos: Repositories; agents: AgentsService; storageQuotaBytes?: number; indexer?: KnowledgeIndexer }) {
    this.files = new FileSpace(deps.repos, deps.storageQuotaBytes);
  }

  /**
   * Writes while holding the agent, so deleting it concurrently cannot leave the file behind; then,
   * once committed (the workflow must see the row), tells the agent's indexing workflow.
   */
  async put(workspaceId: string, agentId: string, path: string, content: Uint8Array, declaredType?: string): Promise<FileEntry> {
    const entry = await this.deps.agents.whileExists(workspaceId, agentId, (trx) =>
      this.files.put(workspaceId, knowledgeSpace(agentId), path, content, declaredType, trx),
    );
    if (entry.index?.status === 'pending') await this.deps.indexer?.changed(workspaceId, knowledgeSpace(agentId));
    return entry;
  }

  async list(workspaceId: string, agentId: string, dir: string, recursive = false): Promise<FileEntry[]> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    return this.files.list(knowledgeSpace(agentId), dir, recursive);
  }

  async read(workspaceId: string, agentId: string, path: string): Promise<{ entry: FileEntry; content: Buffer }> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    return this.files.read(knowledgeSpace(agentId), path);
  }

  async remove(workspaceId: string, agentId: string, path: string): Promise<void> {
    await this.deps.agents.assertExists(workspaceId, agentId);
    return this.files.remove(knowledgeSpace(agentId), path);
  }
}
