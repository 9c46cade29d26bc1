import type { Knex } from 'knex';

/**
 * The knowledge index (docs/knowledge.md): each indexed file's state on `files`, and its chunks
 * with their full-text vector and embedding in `knowledge_chunks`.
 *
 * - `content_sha256` is set on every write, so a re-put of the same bytes is recognised and not
 *   embedded again; `index_status` is null for spaces that are not indexed (conversation drives).
 * - A chunk's embedding is stored compactly as float32 little-endian bytes (`embedding`, unit
 *   length, `dims` numbers) and scored in the worker. When the server offers pgvector, the
 *   extension is created here and the same vector is also kept in `embedding_v` (dimension-less
 *   `vector`); an HNSW index per dimension is made when the first vectors of that dimension are
 *   stored (`knowledge_chunks_hnsw_<dims>`), since an index needs a fixed dimension.
 * - Chunks go with their file (foreign key, cascade): removing a file or a folder removes them.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('files', (t) => {
    t.text('content_sha256');
    t.text('index_status');
    t.text('index_error');
    t.text('indexed_sha256');
    t.integer('index_chunks');
  });
  await db.raw("update files set content_sha256 = encode(sha256(content), 'hex')");
  // Files already in indexed spaces wait for their first indexing; until then search falls back to whole files.
  await db.raw("update files set index_status = 'pending' where space like 'knowledge:%' or space like 'project:%'");
  await db.raw("create index files_index_pending_idx on files (space) where index_status = 'pending'");
  await db.schema.createTable('knowledge_chunks', (t) => {
    t.text('space').notNullable();
    t.text('path').notNullable();
    t.integer('ord').notNullable();
    t.text('location').notNullable();
    t.text('text').notNullable();
    t.smallint('dims');
    t.binary('embedding');
    t.primary(['space', 'path', 'ord']);
    t.foreign(['space', 'path']).references(['space', 'path']).inTable('files').onDelete('CASCADE').onUpdate('CASCADE');
  });
  await db.raw("alter table knowledge_chunks add column search tsvector generated always as (to_tsvector('simple', text)) stored");
  await db.raw('create index knowledge_chunks_search_idx on knowledge_chunks using gin (search)');
  if (await offersPgvector(db)) await db.raw('alter table knowledge_chunks add column embedding_v vector');
}

/**
 * Creates the `vector` extension when the server has it. A role that may not create it (some
 * managed services) is not an error: the exact path serves instead. A savepoint keeps the
 * migration's transaction usable after such a refusal.
 */
async function offersPgvector(db: Knex): Promise<boolean> {
  const available = await db.raw("select 1 from pg_available_extensions where name = 'vector'");
  if (available.rows.length === 0) return false;
  await db.raw('savepoint pgvector');
  try {
    await db.raw('create extension if not exists vector');
    await db.raw('release savepoint pgvector');
    return true;
  } catch {
    await db.raw('rollback to savepoint pgvector');
    return false;
  }
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('knowledge_chunks');
  await db.raw('drop index if exists files_index_pending_idx');
  await db.schema.alterTable('files', (t) => {
    for (const column of ['content_sha256', 'index_status', 'index_error', 'indexed_sha256', 'index_chunks']) t.dropColumn(column);
  });
}
