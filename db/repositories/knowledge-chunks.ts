import type { Knex } from 'knex';
import type { Db } from '../connect';

export interface StoredChunk {
  ord: number;
  location: string;
  text: string;
  /** Unit length; absent when no embeddings model is configured. */
  embedding?: Float32Array;
}

interface ChunkHit {
  path: string;
  ord: number;
  location: string;
  text: string;
}

export interface ScoredChunk extends ChunkHit {
  score: number;
}

/** A chunk with its stored vector, for scoring in the worker (the exact path). */
export interface VectorRow extends ChunkHit {
  embedding: Float32Array;
}

/** pgvector's HNSW index takes vectors of at most this many dimensions; larger ones are scanned exactly. */
const HNSW_MAX_DIMS = 2000;
const INSERT_BATCH = 200;
/**
 * Any word of the question that PostgreSQL's English dictionary does not call a stop word, or'ed,
 * as the `simple` configuration of the chunks' vectors spells them (lower case, not stemmed).
 */
const ANY_WORD_QUERY = `(select nullif(string_agg(quote_literal(lower(token)), ' | '), '')::tsquery
  from ts_debug('english', ?) where alias in ('asciiword', 'word', 'numword', 'asciihword', 'hword') and lexemes <> '{}')`;

/**
 * The knowledge index (migration 025): which files wait for indexing, their chunks with full-text
 * vectors and embeddings, and the two ways of finding the nearest chunks — pgvector's HNSW index
 * when the server has the extension, else every vector of the space read and scored by the caller.
 */
export class KnowledgeChunksRepository {
  private pgvector: Promise<boolean> | undefined;
  private readonly hnswIndexes = new Set<number>();

  constructor(private readonly db: Db) {}

  /** True when the schema has the pgvector column (the server had the extension at migration time). */
  hasPgvector(): Promise<boolean> {
    this.pgvector ??= this.db
      .raw("select 1 from information_schema.columns where table_name = 'knowledge_chunks' and column_name = 'embedding_v'")
      .then((r: { rows: unknown[] }) => r.rows.length > 0);
    return this.pgvector;
  }

  /** Files of the space waiting to be indexed, oldest write first. */
  async pending({ space, limit }: { space: string; limit: number }): Promise<Array<{ path: string; sha256: string }>> {
    const rows: Array<{ path: string; content_sha256: string }> = await this.db('files')
      .where({ space, index_status: 'pending' })
      .orderBy([{ column: 'modified_at' }, { column: 'path' }])
      .limit(limit)
      .select('path', 'content_sha256');
    return rows.map((r) => ({ path: r.path, sha256: r.content_sha256 }));
  }

  /** Spaces with files waiting to be indexed (a worker's start signals them). */
  async pendingSpaces({ limit }: { limit: number }): Promise<Array<{ workspaceId: string; space: string }>> {
    const rows: Array<{ workspace_id: string; space: string }> = await this.db('files').where({ index_status: 'pending' }).distinct('workspace_id', 'space').limit(limit);
    return rows.map((r) => ({ workspaceId: r.workspace_id, space: r.space }));
  }

  /** The file as it is now, for extraction; undefined when it is gone or was rewritten since (another round indexes that). */
  async source({ space, path, sha256 }: { space: string; path: string; sha256: string }): Promise<{ workspaceId: string; mimeType: string; content: Buffer } | undefined> {
    const row = await this.db('files').where({ space, path, content_sha256: sha256 }).first('workspace_id', 'mime_type', 'content');
    return row ? { workspaceId: row.workspace_id as string, mimeType: row.mime_type as string, content: row.content as Buffer } : undefined;
  }

  /**
   * Replaces the file's chunks and marks it indexed (with `note`: what a limit left out), in one
   * transaction, only while the file still holds the content they came from (a write since then
   * leaves it pending for the next round). True when stored.
   */
  async replace({ space, path, sha256, chunks, note }: { space: string; path: string; sha256: string; chunks: StoredChunk[]; note?: string | undefined }): Promise<boolean> {
    const pgvector = await this.hasPgvector();
    const dims = chunks.find((c) => c.embedding)?.embedding?.length;
    if (pgvector && dims) await this.ensureHnswIndex(dims);
    return this.db.transaction(async (t) => {
      const current = await t('files').where({ space, path }).forUpdate().first('content_sha256');
      if (current?.content_sha256 !== sha256) return false;
      await t('knowledge_chunks').where({ space, path }).delete();
      for (let i = 0; i < chunks.length; i += INSERT_BATCH) {
        const rows = chunks.slice(i, i + INSERT_BATCH).map((c) => ({
          space,
          path,
          ord: c.ord,
          location: c.location,
          text: c.text,
          dims: c.embedding ? c.embedding.length : null,
          embedding: c.embedding ? encodeVector(c.embedding) : null,
          ...(pgvector && c.embedding ? { embedding_v: t.raw('?::vector', [vectorLiteral(c.embedding)]) } : {}),
        }));
        await t('knowledge_chunks').insert(rows);
      }
      await t('files')
        .where({ space, path })
        .update({ index_status: 'indexed', indexed_sha256: sha256, index_chunks: chunks.length, index_error: note ?? null });
      return true;
    });
  }

  /**
   * Counts an indexing attempt of the file's current bytes as begun, before the work starts: the
   * attempts begun and not finished, this one included, or undefined when the file is no longer
   * pending with these bytes. Written first and on its own, so an attempt that kills the worker
   * stays counted; `finishAttempt` takes back one that ended, however it ended.
   */
  async startAttempt({ space, path, sha256 }: { space: string; path: string; sha256: string }): Promise<number | undefined> {
    const rows: Array<{ index_attempts: number }> = await this.db('files')
      .where({ space, path, content_sha256: sha256, index_status: 'pending' })
      .increment('index_attempts', 1)
      .returning('index_attempts');
    return rows[0]?.index_attempts;
  }

  /** An attempt ended (indexed, failed or thrown): only attempts that never ended stay counted. */
  async finishAttempt({ space, path, sha256 }: { space: string; path: string; sha256: string }): Promise<void> {
    await this.db('files')
      .where({ space, path, content_sha256: sha256 })
      .update({ index_attempts: this.db.raw('greatest(index_attempts - 1, 0)') });
  }

  /**
   * Marks the file failed with the reason, if it still holds that content; its old chunks go (they
   * describe other bytes). `final`: the bytes themselves cannot be read (a limit, a damaged file),
   * so putting the same bytes again keeps them failed instead of reading them again.
   */
  async fail({ space, path, sha256, error, final = false }: { space: string; path: string; sha256: string; error: string; final?: boolean }): Promise<void> {
    await this.db.transaction(async (t) => {
      const n = await t('files')
        .where({ space, path, content_sha256: sha256 })
        .update({ index_status: 'failed', index_error: error.slice(0, 1000), index_chunks: null, index_failed_sha256: final ? sha256 : null });
      if (n > 0) await t('knowledge_chunks').where({ space, path }).delete();
    });
  }

  /**
   * Full-text hits among the space's chunks, best first: web-search syntax (words, "phrases",
   * -exclusions, or). A plain question rarely has every word in one chunk, so when that finds
   * nothing, any of its words will do (ranked by how many and how often) — but not its stop words
   * ("be", "my", "when"), which would match nearly every chunk.
   */
  async lexical({ space, query, limit }: { space: string; query: string; limit: number }): Promise<Array<ScoredChunk & { snippet: string }>> {
    const strict = await this.lexicalWith(space, "websearch_to_tsquery('simple', ?)", query, limit);
    if (strict.length > 0) return strict;
    return this.lexicalWith(space, ANY_WORD_QUERY, query, limit);
  }

  private async lexicalWith(space: string, tsquery: string, query: string, limit: number): Promise<Array<ScoredChunk & { snippet: string }>> {
    const rows: Array<{ path: string; ord: number; location: string; text: string; score: number; snippet: string }> = await this.db
      .with('q', (w) => w.select(this.db.raw(`${tsquery} as tsq`, [query])))
      .from({ c: 'knowledge_chunks' })
      .crossJoin(this.db.raw('q'))
      .where('c.space', space)
      .whereRaw('c.search @@ q.tsq')
      .select(
        'c.path',
        'c.ord',
        'c.location',
        'c.text',
        this.db.raw('ts_rank(c.search, q.tsq) as score'),
        this.db.raw("ts_headline('simple', c.text, q.tsq, 'MaxWords=40, MinWords=15, MaxFragments=2, StartSel=**, StopSel=**') as snippet"),
      )
      .orderBy([{ column: 'score', order: 'desc' }, { column: 'c.path' }, { column: 'c.ord' }])
      .limit(limit);
    return rows.map((r) => ({ ...r, score: Number(r.score) }));
  }

  /** Every stored vector of the space with the given dimension (the exact path scores them). */
  async vectors({ space, dims }: { space: string; dims: number }): Promise<VectorRow[]> {
    const rows: Array<{ path: string; ord: number; location: string; text: string; embedding: Buffer }> = await this.db('knowledge_chunks')
      .where({ space, dims })
      .select('path', 'ord', 'location', 'text', 'embedding');
    return rows.map((r) => ({ path: r.path, ord: r.ord, location: r.location, text: r.text, embedding: decodeVector(r.embedding) }));
  }

  /**
   * The nearest chunks by cosine distance through pgvector's HNSW index. The index spans every
   * space, so the scan is iterative (pgvector ≥ 0.8): it goes on past other spaces' neighbours
   * until `limit` of this space are found.
   */
  async nearest({ space, vector, limit }: { space: string; vector: Float32Array; limit: number }): Promise<ScoredChunk[]> {
    const dims = vector.length;
    const literal = vectorLiteral(vector);
    return this.db.transaction(async (t) => {
      await t.raw("select set_config('hnsw.iterative_scan', 'relaxed_order', true)").catch(() => undefined);
      const rows: Array<{ path: string; ord: number; location: string; text: string; distance: number }> = await t('knowledge_chunks')
        .where({ space, dims })
        .select('path', 'ord', 'location', 'text', t.raw(`embedding_v::vector(${dims}) <=> ?::vector(${dims}) as distance`, [literal]))
        .orderByRaw(`embedding_v::vector(${dims}) <=> ?::vector(${dims})`, [literal])
        .limit(limit);
      return rows.map((r) => ({ path: r.path, ord: r.ord, location: r.location, text: r.text, score: 1 - Number(r.distance) }));
    });
  }

  /**
   * An HNSW index for vectors of this dimension (a partial index over a cast, since the column has
   * none). Made once per dimension; two workers racing to make it is harmless.
   */
  private async ensureHnswIndex(dims: number): Promise<void> {
    if (dims > HNSW_MAX_DIMS || this.hnswIndexes.has(dims)) return;
    const name = `knowledge_chunks_hnsw_${dims}`;
    try {
      await this.db.raw(`create index if not exists ${name} on knowledge_chunks using hnsw ((embedding_v::vector(${dims})) vector_cosine_ops) where dims = ${dims}`);
    } catch (e) {
      const exists = await this.db.raw('select 1 from pg_indexes where indexname = ?', [name]);
      if (exists.rows.length === 0) throw e;
    }
    this.hnswIndexes.add(dims);
  }

  /** For tests and the benchmark: the names of the HNSW indexes made so far. */
  async hnswIndexNames(): Promise<string[]> {
    const r = await this.db.raw("select indexname from pg_indexes where tablename = 'knowledge_chunks' and indexname like 'knowledge_chunks_hnsw_%' order by 1");
    return (r.rows as Array<{ indexname: string }>).map((x) => x.indexname);
  }

  /** Drops the chunks of a space (tests and benchmarks reset with it). */
  async dropSpace({ space }: { space: string }, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('knowledge_chunks').where({ space }).delete();
  }
}

function encodeVector(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** The stored bytes as floats: a view when aligned, else a copy (a Float32Array must start on a multiple of 4). */
function decodeVector(bytes: Buffer): Float32Array {
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return new Float32Array(new Uint8Array(bytes).buffer);
}

function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}
