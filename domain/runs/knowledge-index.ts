/** What the knowledge index's workflow and its starters share (docs/knowledge.md). Zod-free: workflows import it. */

export interface KnowledgeIndexInput {
  workspaceId: string;
  /** The file space indexed: `knowledge:<agentId>` or `project:<projectId>`. */
  space: string;
}

/** Spaces whose files are indexed for knowledge.search: an agent's knowledge and a project's files. */
export const isIndexedSpace = (space: string) => space.startsWith('knowledge:') || space.startsWith('project:');

/** One indexing workflow per space: every write signals it (or starts it when none runs). */
export const knowledgeIndexWorkflowId = (space: string) => `knowledge-index-${space}`;

/** The signal a write sends: "files of the space changed; look again". It carries nothing: the state is in PostgreSQL. */
export const FILES_CHANGED_SIGNAL = 'filesChanged';

export interface IndexFileResult {
  /** `skipped`: the file is gone or was written again since it was listed (the next round takes the new bytes). */
  status: 'indexed' | 'failed' | 'skipped';
  chunks?: number;
  reason?: string;
}
