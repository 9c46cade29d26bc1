import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { chunkSections } from '../../activities/knowledge/chunk';
import { extractText } from '../../activities/knowledge/extract';
import { exactNearest, searchKnowledge } from '../../activities/knowledge/search';
import { createEmbedder, type Embedder } from '../../activities/model/embeddings';
import { createDb, type Db } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { createRepositories, type Repositories } from '../../db/repositories';
import { knowledgeSpace } from '../../db/repositories/files';
import { randomToken } from '../../domain/ids';
import { type OpenAIServer, startOpenAIServer } from '../../harness/model-servers/openai-server';
import { startPgliteServer } from '../../harness/pglite-server';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from '../../infra/embedded-postgres';
import { freePort } from '../../infra/temporal-dev-server';
import { fixture } from '../support/fixture';

/**
 * The knowledge index's two storage paths (docs/knowledge.md: Storage), each on a fresh database
 * migrated from scratch: the exact path on the test PostgreSQL (the machine's, or the embedded one
 * the fixture starts) and on the project's embedded PostgreSQL, and the pgvector path on PGlite
 * with its `vector` extension over the wire protocol (the migration creates the extension there
 * itself). Files are extracted, chunked and embedded through the OpenAI-wire test server as the
 * indexing activity does, then searched.
 */
describe('knowledge storage: the exact path and the pgvector path', function () {
  this.timeout(180_000);
  let server: OpenAIServer;
  let embedder: Embedder;
  const cleanups: Array<() => Promise<void>> = [];

  before(async () => {
    server = await startOpenAIServer();
    embedder = createEmbedder({ EMBEDDINGS_MODEL: 'openai:embed-test', OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-test' })!;
  });
  after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await server?.close();
  });

  const FILES: Record<string, string> = {
    'refunds.md': '# Refunds\n\nRefunds are issued to the original card within 14 days of receiving the returned item.\n',
    'office.md': '# Office\n\nOur office dog Biscuit sleeps under the stairs and loves the garden.\n',
    'shipping.md': '# Shipping\n\nParcels are dispatched by courier the next working day.\n',
  };

  async function indexAll(repos: Repositories, workspaceId: string, space: string): Promise<void> {
    for (const [p, body] of Object.entries(FILES)) {
      const put = await repos.files.put({ workspaceId, space, path: p, content: Buffer.from(body), mimeType: 'text/markdown' });
      assert.ok('entry' in put);
      const [pending] = (await repos.knowledgeChunks.pending({ space, limit: 10 })).filter((f) => f.path === p);
      const extraction = await extractText({ path: p, mimeType: 'text/markdown', content: Buffer.from(body) });
      assert.ok(extraction.ok);
      const chunks = chunkSections(extraction.sections);
      const { vectors } = await embedder.embed(chunks.map((c) => c.text));
      // A limit's note (as extraction's `truncated` gives it) is kept with the indexed state.
      const note = p === 'office.md' ? 'only the first 2 of 3 pages were read' : undefined;
      assert.equal(await repos.knowledgeChunks.replace({ space, path: p, sha256: pending!.sha256, chunks: chunks.map((c, i) => ({ ...c, embedding: vectors[i]! })), note }), true);
    }
  }

  async function scenario(db: Db, expectPgvector: boolean): Promise<void> {
    await migrateLatest(db);
    const repos = createRepositories(db);
    assert.equal(await repos.knowledgeChunks.hasPgvector(), expectPgvector);
    const workspaceId = `ws_t${randomToken(8)}`;
    await db('workspaces').insert({ id: workspaceId, name: 'storage paths', credits: 0 });
    const space = knowledgeSpace(`agt_t${randomToken(8)}`);
    await indexAll(repos, workspaceId, space);
    const listed = new Map((await repos.files.list({ space, dir: '' })).map((e) => [e.path, e.index]));
    assert.deepEqual(listed.get('office.md'), { status: 'indexed', chunks: 1, note: 'only the first 2 of 3 pages were read' });
    assert.deepEqual(listed.get('refunds.md'), { status: 'indexed', chunks: 1 });

    const question = 'How long until I get my money back?';
    const result = await searchKnowledge({ repos, embedder }, { space, query: question, limit: 3 });
    assert.equal(result.mode, 'hybrid');
    assert.deepEqual([result.hits[0]!.path, result.hits[0]!.location], ['refunds.md', 'section "Refunds"'], JSON.stringify(result.hits));
    const { vectors } = await embedder.embed([question]);
    const exact = await exactNearest(repos, space, vectors[0]!, 3);
    if (expectPgvector) {
      assert.deepEqual(await repos.knowledgeChunks.hnswIndexNames(), ['knowledge_chunks_hnsw_64']);
      const nearest = await repos.knowledgeChunks.nearest({ space, vector: vectors[0]!, limit: 3 });
      assert.deepEqual(
        nearest.map((n) => n.path),
        exact.map((n) => n.path),
        'pgvector ranks as the exact scan does',
      );
      assert.ok(Math.abs(nearest[0]!.score - exact[0]!.score) < 1e-4, `${nearest[0]!.score} vs ${exact[0]!.score}`);
    } else {
      assert.equal(exact[0]!.path, 'refunds.md');
    }
    // Removing a file removes its chunks from both indexes.
    await repos.files.remove({ space, path: 'refunds.md' });
    const after = await searchKnowledge({ repos, embedder }, { space, query: question, limit: 3 });
    assert.ok(!after.hits.some((h) => h.path === 'refunds.md'));
  }

  /** A database of its own on the server at `url`, dropped after the test. */
  async function freshDatabase(url: string): Promise<Db> {
    const name = `knowledge_${randomToken(8).toLowerCase()}`;
    const admin = knex({ client: 'pg', connection: url });
    await admin.raw(`create database ${name}`);
    const u = new URL(url);
    u.pathname = `/${name}`;
    const db = createDb({ url: u.toString(), poolMax: 4 });
    cleanups.push(async () => {
      await db.destroy();
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    });
    return db;
  }

  it('exact path on the test PostgreSQL: a paraphrase finds its paragraph', async () => {
    await scenario(await freshDatabase(fixture().databaseUrl), false);
  });

  it('exact path on the embedded PostgreSQL', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ha-knowledge-pg-'));
    const handle: EmbeddedPostgresHandle = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), log: () => undefined });
    cleanups.push(async () => {
      await handle.stop();
      await rm(dir, { recursive: true, force: true });
    });
    await scenario(await freshDatabase(handle.url), false);
  });

  it('pgvector path on PGlite: the migration creates the extension, an HNSW index serves, and it ranks as the exact scan', async () => {
    const pglite = await startPgliteServer({ maxConnections: 8 });
    const db = createDb({ url: pglite.url, poolMax: 4 });
    cleanups.push(async () => {
      await db.destroy();
      await pglite.close();
    });
    await scenario(db, true);
  });
});
