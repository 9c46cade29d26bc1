import type { Repositories } from '../../db/repositories';
import type { ScoredChunk } from '../../db/repositories/knowledge-chunks';
import type { Embedder } from '../model/embeddings';

interface KnowledgeHit {
  path: string;
  /** 'page 3', 'section "Refunds"', 'rows 2–41', or '' (a whole file, or plain text). */
  location: string;
  snippet: string;
}

export interface KnowledgeSearch {
  hits: KnowledgeHit[];
  /** `hybrid`: full-text and vector results fused; `full-text`: no embeddings model is configured. */
  mode: 'hybrid' | 'full-text';
  /** Tokens the query's embedding cost (the caller debits them). */
  embeddingTokens: number;
}

/** A hit with what identifies it across lists: `path#ord` for a chunk, `path#file` for a whole file. */
export type Candidate = KnowledgeHit & { id: string };

/** Candidates each way before fusion: enough for a good top 20, few enough to stay cheap. */
const CANDIDATES = 30;
/** Reciprocal rank fusion's constant (Cormack et al.): damps the weight of the very first ranks. */
const RRF_K = 60;
const SNIPPET_CHARS = 320;
const MAX_QUERY_CHARS = 2000;

/**
 * Hybrid search over a space's knowledge index (docs/knowledge.md): full-text hits among the
 * chunks (plus whole files not indexed yet) and the nearest chunks by meaning — through pgvector's
 * HNSW index when the server has it, else every vector of the space scored here — fused by
 * reciprocal rank. Without an embeddings model it is full-text alone, and says so.
 */
export async function searchKnowledge(
  deps: { repos: Repositories; embedder: Embedder | undefined },
  input: { space: string; query: string; limit: number },
  signal?: AbortSignal,
): Promise<KnowledgeSearch> {
  const { repos, embedder } = deps;
  const [lexical, unindexed] = await Promise.all([
    repos.knowledgeChunks.lexical({ space: input.space, query: input.query, limit: CANDIDATES }),
    repos.files.search({ space: input.space, query: input.query, limit: CANDIDATES, unindexedOnly: true }),
  ]);
  const lists: Candidate[][] = [
    lexical.map((c) => ({ id: `${c.path}#${c.ord}`, path: c.path, location: c.location, snippet: c.snippet })),
    unindexed.map((f) => ({ id: `${f.path}#file`, path: f.path, location: '', snippet: f.snippet })),
  ];
  let embeddingTokens = 0;
  if (embedder) {
    const { vectors, tokens } = await embedder.embed([input.query.slice(0, MAX_QUERY_CHARS)], signal);
    embeddingTokens = tokens;
    const vector = vectors[0]!;
    const nearest = (await repos.knowledgeChunks.hasPgvector())
      ? await repos.knowledgeChunks.nearest({ space: input.space, vector, limit: CANDIDATES })
      : await exactNearest(repos, input.space, vector, CANDIDATES);
    lists.push(nearest.map((c) => ({ id: `${c.path}#${c.ord}`, path: c.path, location: c.location, snippet: excerpt(c.text) })));
  }
  return { hits: fuse(lists, input.limit), mode: embedder ? 'hybrid' : 'full-text', embeddingTokens };
}

/**
 * The exact path: every vector of the space with the query's dimension, scored by dot product
 * (both are unit length) — a linear scan whose cost bench/knowledge.ts measures.
 */
export async function exactNearest(repos: Repositories, space: string, vector: Float32Array, limit: number): Promise<ScoredChunk[]> {
  const rows = await repos.knowledgeChunks.vectors({ space, dims: vector.length });
  const scored = rows.map((r) => ({ path: r.path, ord: r.ord, location: r.location, text: r.text, score: dot(vector, r.embedding) }));
  return scored.sort((a, b) => b.score - a.score).slice(0, limit);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * Reciprocal rank fusion: each hit scores the sum of 1 / (k + rank) over the lists it is in; the
 * first list's version of a hit is kept (the full-text one has the highlighted snippet).
 */
export function fuse(lists: Candidate[][], limit: number): KnowledgeHit[] {
  const fused = new Map<string, { hit: KnowledgeHit; score: number }>();
  for (const list of lists) {
    list.forEach(({ id, ...hit }, rank) => {
      const seen = fused.get(id);
      if (seen) seen.score += 1 / (RRF_K + rank + 1);
      else fused.set(id, { hit, score: 1 / (RRF_K + rank + 1) });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.hit.path.localeCompare(b.hit.path))
    .slice(0, limit)
    .map((f) => f.hit);
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
}
