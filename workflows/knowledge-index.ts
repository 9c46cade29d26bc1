import { type ActivityOptions, ActivityFailure, continueAsNew, defineSignal, isCancellation, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { KnowledgeIndexActivities } from '../activities/knowledge-index';
import { FILES_CHANGED_SIGNAL, type KnowledgeIndexInput } from '../domain/runs/knowledge-index';

/** Files listed per round; a full page means there may be more, so another round follows. */
const PAGE = 20;
/** Rounds before the history is handed to a fresh run (a busy space signals for hours). */
const ROUNDS_PER_RUN = 50;

const listing: ActivityOptions = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', maximumInterval: '30 seconds' } };
/**
 * Indexing a file extracts, chunks and embeds it: a large PDF takes a while, so the activity
 * heartbeats all along and a dead worker's attempt is retried after 15 s.
 * Five attempts ride out a provider's short outage; after that the file is marked failed.
 */
const indexing: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
};

const list = proxyActivities<KnowledgeIndexActivities>({ ...listing, summary: 'list files waiting for indexing' });
const mark = proxyActivities<KnowledgeIndexActivities>({ ...listing, summary: 'mark the file failed' });

const filesChanged = defineSignal(FILES_CHANGED_SIGNAL);

/**
 * The knowledge index of one file space (docs/knowledge.md), id `knowledge-index-<space>`: every
 * write signals it (signal-with-start), and it indexes the files PostgreSQL says are pending —
 * extract, chunk, embed, store — one at a time, until a round finds none and no signal came in
 * meanwhile. The state is in the `files` rows, not here: a signal only says "look again", so a
 * lost or doubled one changes nothing, and a file written while it is being indexed is indexed
 * again with its new bytes.
 */
export async function knowledgeIndexWorkflow(input: KnowledgeIndexInput): Promise<{ indexed: number; failed: number }> {
  let changed = true;
  setHandler(filesChanged, () => {
    changed = true;
  });
  let indexed = 0;
  let failed = 0;
  for (let round = 0; changed; round++) {
    if (round === ROUNDS_PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof knowledgeIndexWorkflow>(input);
    changed = false;
    const pending = await list.pendingKnowledgeFiles({ space: input.space, limit: PAGE });
    for (const file of pending) {
      const index = proxyActivities<KnowledgeIndexActivities>({ ...indexing, summary: `index ${file.path}` });
      try {
        const r = await index.indexKnowledgeFile({ space: input.space, path: file.path, sha256: file.sha256 });
        if (r.status === 'indexed') indexed++;
        else if (r.status === 'failed') failed++;
      } catch (err) {
        if (isCancellation(err)) throw err;
        const reason = err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err);
        await mark.failKnowledgeFile({ space: input.space, path: file.path, sha256: file.sha256, error: reason });
        failed++;
      }
    }
    if (pending.length === PAGE) changed = true;
  }
  return { indexed, failed };
}
