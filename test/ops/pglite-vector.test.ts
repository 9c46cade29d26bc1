import assert from 'node:assert/strict';
import pg from 'pg';
import { createDb, type Db } from '../../db/connect';
import { startPgliteServer, type PgliteServer } from '../../harness/pglite-server';

/**
 * The PostgreSQL with pgvector that CI tests the vector path on: PGlite with its `vector`
 * extension behind the wire protocol (harness/pglite-server.ts). Checks what knowledge retrieval
 * relies on: a `vector` column of any dimension with a partial HNSW index per dimension over a
 * cast, used by the nearest-neighbour query, plus full-text search, advisory locks and bytea.
 */

const DIMS = 8;

/** A deterministic, well-spread vector of chunk `i`. */
function embedding(i: number): number[] {
  return Array.from({ length: DIMS }, (_, k) => Math.sin((i + 1) * (k + 1) * 0.7311 + k * k * 0.173));
}

function cosineDistance(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, k) => {
    const y = b[k] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  });
  return 1 - dot / Math.sqrt(na * nb);
}

const literal = (v: number[]) => `[${v.join(',')}]`;

describe('PGlite with pgvector over the wire protocol', function () {
  this.timeout(120_000);
  let server: PgliteServer | undefined;
  let db: Db;
  const rows = 2000;

  before(async () => {
    server = await startPgliteServer({ maxConnections: 8 });
    db = createDb({ url: server.url, poolMax: 4 });
    await db.raw('create extension if not exists vector');
    await db.raw(`create table chunks (
      id int primary key,
      space text not null,
      dims int not null,
      embedding vector not null,
      text text not null,
      tsv tsvector generated always as (to_tsvector('simple', text)) stored,
      body bytea
    )`);
    await db.raw(`create index chunks_hnsw_${DIMS} on chunks using hnsw ((embedding::vector(${DIMS})) vector_cosine_ops) where dims = ${DIMS}`);
    const ids = Array.from({ length: rows }, (_, i) => i);
    await db.raw(
      `insert into chunks (id, space, dims, embedding, text)
       select id, case when id % 2 = 0 then 'even' else 'odd' end, ${DIMS}, e::vector, 'chunk ' || id || case when id % 3 = 0 then ' about pears' else ' about apples' end
       from unnest(?::int[], ?::text[]) as t(id, e)`,
      [ids, ids.map((i) => literal(embedding(i)))],
    );
    // A chunk of another dimension: the partial index leaves it out, the query's `dims` skips it.
    await db.raw(`insert into chunks (id, space, dims, embedding, text) values (-1, 'even', 3, '[1,2,3]', 'three')`);
    await db.raw('analyze chunks');
  });

  after(async () => {
    await db?.destroy();
    await server?.close();
  });

  it('has pgvector 0.8 or later', async () => {
    const { rows: found } = await db.raw<{ rows: { extversion: string }[] }>(`select extversion from pg_extension where extname = 'vector'`);
    const version = found[0]?.extversion ?? '';
    const [major = 0, minor = 0] = version.split('.').map(Number);
    assert.ok(major > 0 || minor >= 8, `pgvector ${version}`);
  });

  const nearest = `select id from chunks where dims = ${DIMS} and space = ? order by embedding::vector(${DIMS}) <=> ?::vector(${DIMS}) limit 5`;

  it('answers the nearest-neighbour query with the partial HNSW index', async () => {
    const { rows: plan } = await db.raw<{ rows: { 'QUERY PLAN': string }[] }>(`explain ${nearest}`, ['even', literal(embedding(42))]);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    assert.match(text, new RegExp(`Index Scan using chunks_hnsw_${DIMS} on chunks`), text);
  });

  it('finds the exact nearest neighbours', async () => {
    for (const probe of [42, 1001, 1998]) {
      const query = embedding(probe).map((x, k) => x + (k % 2 ? 0.01 : -0.01));
      const { rows: got } = await db.raw<{ rows: { id: number }[] }>(nearest, ['even', literal(query)]);
      const exact = Array.from({ length: rows }, (_, i) => i)
        .filter((i) => i % 2 === 0)
        .sort((a, b) => cosineDistance(embedding(a), query) - cosineDistance(embedding(b), query))
        .slice(0, 5);
      assert.deepEqual(got.map((r) => r.id), exact, `probe ${probe}`);
    }
  });

  it('accepts iterative index scans (pgvector 0.8)', async () => {
    await db.transaction(async (trx) => {
      await trx.raw('set local hnsw.iterative_scan = relaxed_order');
      const { rows: shown } = await trx.raw<{ rows: { 'hnsw.iterative_scan': string }[] }>('show hnsw.iterative_scan');
      assert.equal(shown[0]?.['hnsw.iterative_scan'], 'relaxed_order');
      const { rows: got } = await trx.raw<{ rows: { id: number }[] }>(nearest, ['odd', literal(embedding(7))]);
      assert.equal(got[0]?.id, 7);
    });
  });

  it('searches text with websearch_to_tsquery and ts_rank over a generated tsvector', async () => {
    const { rows: got } = await db.raw<{ rows: { id: number; rank: number }[] }>(
      `select id, ts_rank(tsv, websearch_to_tsquery('simple', ?)) as rank from chunks
       where tsv @@ websearch_to_tsquery('simple', ?) order by rank desc, id limit 3`,
      ['pears -apples "chunk 9"', 'pears -apples "chunk 9"'],
    );
    assert.deepEqual(got.map((r) => r.id), [9]);
    assert.ok((got[0]?.rank ?? 0) > 0);
  });

  it('takes transaction advisory locks and stores bytea', async () => {
    await db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(?)', [42]);
      await trx.raw('update chunks set body = ? where id = 0', [Buffer.from([0, 1, 255])]);
    });
    const { rows: got } = await db.raw<{ rows: { body: Buffer }[] }>('select body from chunks where id = 0');
    assert.deepEqual([...(got[0]?.body ?? [])], [0, 1, 255]);
  });

  // The pool's four (at most) and four more.
  it('serves several connections at once', async () => {
    const clients = Array.from({ length: 4 }, () => new pg.Client({ connectionString: server?.url }));
    try {
      await Promise.all(clients.map((c) => c.connect()));
      // Each client's queries in turn, the four clients at once: their messages interleave on the server.
      const answers = await Promise.all(
        clients.map(async (c, n) => {
          const got: number[] = [];
          for (let i = 0; i < 10; i++) got.push((await c.query<{ v: number }>('select $1::int + $2::int as v', [n, i * 4])).rows[0]?.v ?? -1);
          return got;
        }),
      );
      assert.deepEqual(answers.flat().sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i));
    } finally {
      await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    }
  });
});
