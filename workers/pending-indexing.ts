import type { Repositories } from '../db/repositories';
import type { Logger } from '../infra/logger';
import type { KnowledgeIndexer } from '../infra/knowledge-indexer';

/** Spaces signalled per start: a bound on the start's work (a later start, or a write, takes the rest). */
const MAX_SPACES = 1000;

/**
 * At worker start, the spaces that still hold `pending` files get their indexing workflow
 * signalled: files written while Temporal could not be told, and the files that existed before
 * the index did (migration 025 marks them pending). A space already being indexed just gets one
 * more "look again". Runs beside the start, not before it: nothing waits on it.
 */
export async function resumePendingIndexing(deps: { repos: Repositories; indexer: KnowledgeIndexer; logger: Logger }): Promise<number> {
  const spaces = await deps.repos.knowledgeChunks.pendingSpaces({ limit: MAX_SPACES });
  for (const s of spaces) await deps.indexer.changed(s.workspaceId, s.space);
  if (spaces.length > 0) deps.logger.info({ spaces: spaces.length }, 'knowledge indexing resumed for spaces with pending files');
  return spaces.length;
}
