import { performance } from 'node:perf_hooks';
import { exactNearest, searchKnowledge } from '../activities/knowledge/search';
import { type Embedder, unit } from '../activities/model/embeddings';
import { createDb, type Db } from '../db/connect';
import { migrateLatest } from '../db/migrate';
import { createRepositories, type Repositories } from '../db/repositories';
import { knowledgeSpace } from '../db/repositories/files';
import { randomToken } from '../domain/ids';
import { freshDatabase } from '../harness/database';
import { startPgliteServer } from '../harness/pglite-server';
import { appendResult } from './lib/results';
import { percentile } from './lib/stats';

/**
 * `npm run bench:knowledge`: the knowledge index's storage and search, on both storage paths
 * (docs/knowledge.md): the exact path on a database of its own on DATABASE_URL's server (else an
 * embedded PostgreSQL), dropped after, and the pgvector path on PGlite with its vector extension
 * (harness/pglite-server.ts). For each: store BENCH_KNOWLEDGE_CHUNKS chunks [1000] of
 * BENCH_KNOWLEDGE_DIMS dimensions [1536, text-embedding-3-small's] in files of 20 chunks, then
 * BENCH_KNOWLEDGE_QUERIES searches [200]: the vector leg alone and the whole hybrid search. The
 * question's embedding comes from an in-process stand-in (no HTTP): the figures are ours, not a
 * provider's. The exact path is then measured at larger corpora to find where it passes 50 ms.
 */

const startedAt = Date.now();
const log = (line: string) => process.stderr.write(`[bench +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: a whole number ≥ 1`);
  return value;
}

const CHUNKS = int('BENCH_KNOWLEDGE_CHUNKS', 1000);
const DIMS = int('BENCH_KNOWLEDGE_DIMS', 1536);
const QUERIES = int('BENCH_KNOWLEDGE_QUERIES', 200);
const PER_FILE = 20;
const SCALES = [1000, 2000, 5000, 10000];

const WORDS = 'refund parcel courier warranty invoice holiday password office garden receipt store weekday price account delivery repair leave annual basement canteen'.split(' ');

/** A seeded generator, so both paths store and ask the same things. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function randomVector(next: () => number): Float32Array {
  return unit(Array.from({ length: DIMS }, () => next() - 0.5));
}

function text(next: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
}

async function seedWorkspace(db: Db): Promise<string> {
  const id = `ws_bench${randomToken(6)}`;
  await db('workspaces').insert({ id, name: 'bench', credits: 0 });
  return id;
}

/** Stores `count` chunks in files of PER_FILE; returns the milliseconds the stores took. */
async function store(repos: Repositories, workspaceId: string, space: string, count: number, next: () => number): Promise<number> {
  let took = 0;
  for (let f = 0; f * PER_FILE < count; f++) {
    const path = `doc-${f}.md`;
    const put = await repos.files.put({ workspaceId, space, path, content: Buffer.from(`file ${f}`), mimeType: 'text/markdown' });
    if (!('entry' in put)) throw new Error(`put ${path}: ${JSON.stringify(put)}`);
    const sha256 = (await repos.knowledgeChunks.pending({ space, limit: 1000 })).find((p) => p.path === path)!.sha256;
    const chunks = Array.from({ length: Math.min(PER_FILE, count - f * PER_FILE) }, (_, ord) => ({ ord, location: `page ${ord + 1}`, text: text(next, 150), embedding: randomVector(next) }));
    const t0 = performance.now();
    if (!(await repos.knowledgeChunks.replace({ space, path, sha256, chunks }))) throw new Error(`replace ${path} refused`);
    took += performance.now() - t0;
  }
  return took;
}

interface Figures {
  storeMs: number;
  vector: { p50: number; p99: number };
  hybrid: { p50: number; p99: number };
}

async function measure(repos: Repositories, space: string, next: () => number, vectorLeg: (v: Float32Array) => Promise<unknown>): Promise<Omit<Figures, 'storeMs'>> {
  let current = randomVector(next);
  const embedder: Embedder = { model: 'bench:in-process', embed: async () => ({ vectors: [current], tokens: 1 }) };
  const vector: number[] = [];
  const hybrid: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    current = randomVector(next);
    let t0 = performance.now();
    await vectorLeg(current);
    vector.push(performance.now() - t0);
    t0 = performance.now();
    await searchKnowledge({ repos, embedder }, { space, query: text(next, 2), limit: 5 });
    hybrid.push(performance.now() - t0);
  }
  const p = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });
  return { vector: p(vector), hybrid: p(hybrid) };
}

async function exactPath(): Promise<{ figures: Figures; scale: Array<{ chunks: number; p50: number }> }> {
  const fresh = await freshDatabase({ prefix: 'bench_knowledge', log: () => undefined });
  log(`exact path on ${fresh.kind}`);
  const db = createDb({ url: fresh.url, poolMax: 4 });
  try {
    await migrateLatest(db);
    const repos = createRepositories(db);
    const workspaceId = await seedWorkspace(db);
    const next = rng(1);
    const space = knowledgeSpace('agt_bench');
    log(`exact path: storing ${CHUNKS} chunks of ${DIMS} dimensions`);
    const storeMs = await store(repos, workspaceId, space, CHUNKS, next);
    log('exact path: searching');
    const m = await measure(repos, space, next, (v) => exactNearest(repos, space, v, 30));
    const scale: Array<{ chunks: number; p50: number }> = [];
    for (const size of SCALES) {
      const s = knowledgeSpace(`agt_scale${size}`);
      await store(repos, workspaceId, s, size, next);
      const samples: number[] = [];
      for (let i = 0; i < 30; i++) {
        const v = randomVector(next);
        const t0 = performance.now();
        await exactNearest(repos, s, v, 30);
        samples.push(performance.now() - t0);
      }
      scale.push({ chunks: size, p50: percentile(samples, 50) });
      log(`exact path at ${size} chunks: p50 ${percentile(samples, 50).toFixed(1)} ms`);
    }
    return { figures: { storeMs, ...m }, scale };
  } finally {
    await db.destroy();
    await fresh.drop();
  }
}

async function pgvectorPath(): Promise<Figures & { indexes: string[] }> {
  const server = await startPgliteServer({ maxConnections: 8 });
  const db = createDb({ url: server.url, poolMax: 4 });
  try {
    // The migration creates the extension itself when the server offers it: PGlite does.
    await migrateLatest(db);
    const repos = createRepositories(db);
    if (!(await repos.knowledgeChunks.hasPgvector())) throw new Error('PGlite did not get the vector column');
    const workspaceId = await seedWorkspace(db);
    const next = rng(1);
    const space = knowledgeSpace('agt_bench');
    log(`pgvector path (PGlite): storing ${CHUNKS} chunks of ${DIMS} dimensions`);
    const storeMs = await store(repos, workspaceId, space, CHUNKS, next);
    log('pgvector path: searching');
    const m = await measure(repos, space, next, (v) => repos.knowledgeChunks.nearest({ space, vector: v, limit: 30 }));
    return { storeMs, ...m, indexes: await repos.knowledgeChunks.hnswIndexNames() };
  } finally {
    await db.destroy();
    await server.close();
  }
}

async function main(): Promise<void> {
  const exact = await exactPath();
  const vec = await pgvectorPath();
  const f = (n: number) => n.toFixed(1);
  out(`knowledge search: ${CHUNKS} chunks of ${DIMS} dimensions, ${QUERIES} searches, 5 results`);
  out();
  out('| path | store all chunks | vector leg p50 / p99 | hybrid search p50 / p99 |');
  out('|---|---|---|---|');
  out(`| exact (PostgreSQL, scored in the worker) | ${f(exact.figures.storeMs)} ms | ${f(exact.figures.vector.p50)} / ${f(exact.figures.vector.p99)} ms | ${f(exact.figures.hybrid.p50)} / ${f(exact.figures.hybrid.p99)} ms |`);
  out(`| pgvector HNSW (PGlite) | ${f(vec.storeMs)} ms | ${f(vec.vector.p50)} / ${f(vec.vector.p99)} ms | ${f(vec.hybrid.p50)} / ${f(vec.hybrid.p99)} ms |`);
  out();
  out(`HNSW indexes on PGlite: ${vec.indexes.join(', ') || 'none'}`);
  out('exact path, vector leg p50 by corpus size (30 searches each):');
  for (const s of exact.scale) out(`  ${s.chunks} chunks: ${f(s.p50)} ms`);
  appendResult('knowledge', {
    chunks: CHUNKS,
    dims: DIMS,
    exactStoreMs: exact.figures.storeMs,
    exactVectorP50: exact.figures.vector.p50,
    exactVectorP99: exact.figures.vector.p99,
    exactHybridP50: exact.figures.hybrid.p50,
    exactHybridP99: exact.figures.hybrid.p99,
    pgvectorStoreMs: vec.storeMs,
    pgvectorVectorP50: vec.vector.p50,
    pgvectorVectorP99: vec.vector.p99,
    pgvectorHybridP50: vec.hybrid.p50,
    pgvectorHybridP99: vec.hybrid.p99,
    ...Object.fromEntries(exact.scale.map((s) => [`exactVectorP50At${s.chunks}`, s.p50])),
  });
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
