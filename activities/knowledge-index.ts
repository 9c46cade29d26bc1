import { Context } from '@temporalio/activity';
import type { Repositories } from '../db/repositories';
import type { StoredChunk } from '../db/repositories/knowledge-chunks';
import type { IndexFileResult } from '../domain/runs/knowledge-index';
import { tokenCredits } from '../domain/token-credits';
import { embeddingFailure } from './failure-mapping';
import { chunkSections } from './knowledge/chunk';
import { extractInSandbox } from './knowledge/extract-sandbox';
import { EMBED_BATCH, type Embedder } from './model/embeddings';

/**
 * Attempts of one file's bytes that may begin and never end (the worker killed while indexing it)
 * before the next one marks it failed instead of reading it: a file that kills its reader is
 * read at most three times, however often the worker restarts.
 */
const MAX_UNFINISHED_ATTEMPTS = 2;

interface KnowledgeIndexDeps {
  repos: Repositories;
  /** Undefined without `EMBEDDINGS_MODEL`: chunks are stored for full-text search only. */
  embedder: Embedder | undefined;
  /** `CREDITS_PER_1K_EMBEDDING_TOKENS`. */
  creditsPer1kEmbeddingTokens: number;
}

interface FileRef {
  space: string;
  path: string;
  sha256: string;
}

/** The steps of `knowledgeIndexWorkflow` (docs/knowledge.md). */
export function createKnowledgeIndexActivities(deps: KnowledgeIndexDeps) {
  const { repos, embedder } = deps;

  /** Embeds the chunks in batches, debiting each batch's tokens; heartbeats between batches. */
  async function embedAll(chunks: StoredChunk[], workspaceId: string, file: FileRef, ctx: Context): Promise<void> {
    if (!embedder) return;
    const attempt = ctx.info.attempt;
    for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
      const batch = chunks.slice(i, i + EMBED_BATCH);
      const { vectors, tokens } = await embedder.embed(batch.map((c) => c.text), ctx.cancellationSignal);
      batch.forEach((c, j) => (c.embedding = vectors[j]));
      const cost = tokenCredits(tokens, deps.creditsPer1kEmbeddingTokens);
      // Keyed per batch and attempt: a retried attempt pays again for what it embedded again.
      const key = `embed:${file.space}:${file.path}:${file.sha256.slice(0, 16)}:${i / EMBED_BATCH}:${attempt}`;
      if (cost > 0) await repos.workspaces.debitTurn({ workspaceId, turnId: key, amount: cost });
      ctx.heartbeat({ embedded: i + batch.length, of: chunks.length });
    }
  }

  /**
   * Extracts (in the sandbox), chunks, embeds and stores one file (the activity below beats around
   * it and counts the attempt). A file its bytes cannot be read from fails for good (`final`).
   */
  async function indexFile(file: FileRef, source: { workspaceId: string; mimeType: string; content: Buffer }, ctx: Context): Promise<IndexFileResult> {
    const extraction = await extractInSandbox({ path: file.path, mimeType: source.mimeType, content: source.content }, undefined, ctx.cancellationSignal);
    if (!extraction.ok) {
      await repos.knowledgeChunks.fail({ ...file, error: extraction.reason, final: true });
      return { status: 'failed', reason: extraction.reason };
    }
    const chunks: StoredChunk[] = chunkSections(extraction.sections);
    if (chunks.length === 0) {
      const reason = 'the file holds no text to index';
      await repos.knowledgeChunks.fail({ ...file, error: reason, final: true });
      return { status: 'failed', reason };
    }
    try {
      await embedAll(chunks, source.workspaceId, file, ctx);
    } catch (e) {
      throw embeddingFailure(e);
    }
    const stored = await repos.knowledgeChunks.replace({ ...file, chunks, note: extraction.truncated });
    return stored ? { status: 'indexed', chunks: chunks.length } : { status: 'skipped' };
  }

  return {
    /** The files of the space waiting for indexing. */
    async pendingKnowledgeFiles(input: { space: string; limit: number }): Promise<Array<{ path: string; sha256: string }>> {
      return repos.knowledgeChunks.pending(input);
    },

    /**
     * Extracts, chunks, embeds and stores one file's content. A document that yields no text is
     * marked `failed` with the reason at once (retrying cannot help); a provider failure is thrown
     * for Temporal to retry, and the workflow marks the file failed when the retries run out.
     */
    async indexKnowledgeFile(file: FileRef): Promise<IndexFileResult> {
      const ctx = Context.current();
      const source = await repos.knowledgeChunks.source(file);
      if (!source) return { status: 'skipped' };
      const begun = await repos.knowledgeChunks.startAttempt(file);
      if (begun === undefined) return { status: 'skipped' };
      if (begun > MAX_UNFINISHED_ATTEMPTS) {
        // Earlier attempts began and never ended: the worker died each time. Not again.
        const reason = `indexing it was interrupted ${begun - 1} times before it finished (the worker stopped while reading it)`;
        await repos.knowledgeChunks.fail({ ...file, error: reason, final: true });
        return { status: 'failed', reason };
      }
      // A long extraction or a slow provider is not a dead worker: beat all along, not only between batches.
      const beat = setInterval(() => ctx.heartbeat(), 3_000);
      try {
        return await indexFile(file, source, ctx);
      } finally {
        clearInterval(beat);
        await repos.knowledgeChunks.finishAttempt(file);
      }
    },

    /** Marks a file failed after its retries ran out (the reason is the last attempt's). */
    async failKnowledgeFile(input: FileRef & { error: string }): Promise<void> {
      await repos.knowledgeChunks.fail(input);
    },
  };
}

export type KnowledgeIndexActivities = ReturnType<typeof createKnowledgeIndexActivities>;
