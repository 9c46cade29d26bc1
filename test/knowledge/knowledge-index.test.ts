import assert from 'node:assert/strict';
import { Connection, Client as TemporalClient } from '@temporalio/client';
import { searchKnowledge } from '../../activities/knowledge/search';
import { createEmbedder, EMBED_BATCH } from '../../activities/model/embeddings';
import { knowledgeTool } from '../../activities/tools/builtin-knowledge';
import { createRepositories } from '../../db/repositories';
import { knowledgeSpace, projectSpace } from '../../db/repositories/files';
import type { FileEntry } from '../../domain/file-path';
import { knowledgeIndexWorkflowId } from '../../domain/runs/knowledge-index';
import { makeDocx, makePdf } from '../support/documents';
import { fixture } from '../support/fixture';
import { waitFor } from '../support/wait';
import { useIsolatedStack } from '../support/isolated-stack';

/**
 * Knowledge that understands meaning (issue 37): files put through the API are indexed by a
 * workflow (extract → chunk → embed through the OpenAI-wire test server's /v1/embeddings → store
 * in PostgreSQL), and knowledge.search fuses full-text and vector hits. The test server's vectors
 * (harness/model-servers/concept-embeddings.ts) put a paraphrase nearer its paragraph than an
 * unrelated text. This runs the exact path (vectors scored in the worker): the test PostgreSQL has
 * no pgvector; test/knowledge/pgvector.test.ts runs the other path.
 */
describe('knowledge index: documents, meaning, and an indexing workflow', function () {
  this.timeout(180_000);
  const stack = useIsolatedStack({
    model: 'openai',
    worker: 'process',
    env: { MODEL_PREMIUM: 'local:offline', EMBEDDINGS_MODEL: 'openai:embed-test', CREDITS_PER_1K_EMBEDDING_TOKENS: '1' },
  });
  const { api, model: server } = stack;
  const repos = () => createRepositories(api.db);

  const embedder = () => createEmbedder({ EMBEDDINGS_MODEL: 'openai:embed-test', OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-test' });

  async function newAgent() {
    const { ws, apiKey, workspaceId } = await stack.workspace(1000);
    const created = await ws.agents.create({ name: 'Help desk', tools: ['knowledge.search'] });
    return { ws, apiKey, workspaceId, agentId: created.id, agent: ws.agent(created.id) };
  }

  /** Waits until every listed file has left `pending`; returns the entries by path. */
  async function settled(list: () => Promise<FileEntry[]>, paths: string[]): Promise<Map<string, FileEntry>> {
    const last = await waitFor(
      `indexing of ${paths.join(', ')}`,
      list,
      (entries) => paths.every((p) => entries.some((e) => e.path === p && e.index && e.index.status !== 'pending')),
      90_000,
    );
    return new Map(last.map((e) => [e.path, e]));
  }

  const search = (space: string, query: string, limit = 3) => searchKnowledge({ repos: repos(), embedder: embedder() }, { space, query, limit });

  it('finds the paragraph a question means though they share no word, through a turn, and cites it', async () => {
    const { agent, agentId } = await newAgent();
    await agent.knowledge.put('policies/refunds.md', '# Refunds\n\nRefunds are issued to the original card within 14 days of receiving the returned item.\n');
    await agent.knowledge.put('notes/office.md', '# Office\n\nOur office dog Biscuit sleeps under the stairs and loves the garden.\n');
    const all = await settled(async () => [...(await agent.knowledge.list('policies')), ...(await agent.knowledge.list('notes'))], ['policies/refunds.md', 'notes/office.md']);
    assert.equal(all.get('policies/refunds.md')!.index!.status, 'indexed');
    assert.ok(all.get('policies/refunds.md')!.index!.chunks! >= 1);

    const question = 'How long until I get my money back?';
    // No word of the question is in the paragraph: full-text alone finds nothing.
    const words = await repos().knowledgeChunks.lexical({ space: knowledgeSpace(agentId), query: question, limit: 5 });
    assert.ok(!words.some((h) => h.path === 'policies/refunds.md'), JSON.stringify(words));

    // Through a turn: the model calls knowledge_search, and the next request carries the result.
    server.enqueue({ toolCalls: [{ name: 'knowledge_search', args: { query: question } }] }, { text: 'Within 14 days [policies/refunds.md, section "Refunds"].' });
    const before = server.requests.length;
    const events = [];
    for await (const e of (await agent.start()).ask(question)) events.push(e);
    assert.equal(events.at(-1)?.type, 'done', JSON.stringify(events.at(-1)));
    const followUp = server.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'))[1]!;
    const messages = (followUp.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    const result = String(messages.find((m) => m.role === 'tool')?.content);
    assert.match(result, /^\[1\] policies\/refunds\.md, section "Refunds"\n.*14 days/m, result);
    assert.ok(result.indexOf('policies/refunds.md') < (result.indexOf('notes/office.md') === -1 ? Infinity : result.indexOf('notes/office.md')));
    assert.match(result, /Cite what you use as \[file, location\]/);
  });

  it('extracts a PDF and a DOCX made here and finds them by page and by section', async () => {
    const { agent, agentId } = await newAgent();
    const pdf = await makePdf([
      'Welcome to the handbook.\n\nThis guide explains how our stores work.',
      'The warranty covers manufacturing defects for two years from purchase.',
      'Opening hours are nine to five on weekdays.',
    ]);
    const docx = await makeDocx([
      { heading: 'Returns', paragraphs: ['Items can be returned in store with the receipt.'] },
      { heading: 'Shipping', paragraphs: ['Parcels are dispatched by courier the next working day.'] },
    ]);
    await agent.knowledge.put('handbook.pdf', pdf);
    await agent.knowledge.put('guide.docx', docx);
    const indexed = await settled(() => agent.knowledge.list(), ['handbook.pdf', 'guide.docx']);
    assert.equal(indexed.get('handbook.pdf')!.index!.status, 'indexed', JSON.stringify(indexed.get('handbook.pdf')));
    assert.equal(indexed.get('guide.docx')!.index!.status, 'indexed', JSON.stringify(indexed.get('guide.docx')));

    const space = knowledgeSpace(agentId);
    const broken = await search(space, 'Is a faulty product covered?');
    assert.deepEqual([broken.hits[0]!.path, broken.hits[0]!.location], ['handbook.pdf', 'page 2'], JSON.stringify(broken.hits));
    assert.equal(broken.mode, 'hybrid');
    const parcel = await search(space, 'When will my package be sent?');
    assert.deepEqual([parcel.hits[0]!.path, parcel.hits[0]!.location], ['guide.docx', 'section "Shipping"'], JSON.stringify(parcel.hits));
  });

  it('a re-put replaces the chunks, the same bytes are not embedded again, a removal removes them, and the workspace pays per token', async () => {
    const { agent, agentId, workspaceId } = await newAgent();
    const space = knowledgeSpace(agentId);
    const chunks = () => api.db('knowledge_chunks').where({ space, path: 'faq.md' }).orderBy('ord').select('ord', 'text', 'dims');
    const debits = async () =>
      Number((await api.db('credit_debits').where({ workspace_id: workspaceId }).whereLike('turn_id', `embed:${space}:%`).sum({ s: 'amount' }).first())?.s ?? 0);

    const inputsBefore = server.embeddings.inputs.length;
    await agent.knowledge.put('faq.md', '# Parking\n\nVisitors park behind the building.\n');
    await settled(() => agent.knowledge.list(), ['faq.md']);
    const first = await chunks();
    assert.equal(first.length, 1);
    assert.match(first[0]!.text, /Visitors park/);
    assert.equal(first[0]!.dims, 64);
    const embeddedFirst = server.embeddings.inputs.length - inputsBefore;
    assert.equal(embeddedFirst, 1, 'one chunk embedded');
    const paidFirst = await debits();
    assert.ok(paidFirst > 0, 'embedding is debited');

    // The same bytes again: nothing to do, and the entry says indexed at once.
    const same = await agent.knowledge.put('faq.md', '# Parking\n\nVisitors park behind the building.\n');
    assert.equal(same.index?.status, 'indexed');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(server.embeddings.inputs.length - inputsBefore, 1, 'the unchanged file was not embedded again');

    // New bytes: the old chunk is gone, the new ones are stored.
    const replaced = await agent.knowledge.put('faq.md', '# Parking\n\nStaff park in the basement.\n\n# Lunch\n\nThe canteen opens at noon.\n');
    assert.equal(replaced.index?.status, 'pending');
    await settled(() => agent.knowledge.list(), ['faq.md']);
    const second = await chunks();
    assert.equal(second.length, 2, JSON.stringify(second));
    assert.ok(second.every((c: { text: string }) => !c.text.includes('Visitors')), 'no chunk of the old content is left');
    assert.ok((await debits()) > paidFirst, 'the new content was paid for');

    await agent.knowledge.remove('faq.md');
    assert.equal((await chunks()).length, 0, 'removing the file removed its chunks');
    const after = await search(space, 'Where do staff park?');
    assert.ok(!after.hits.some((h) => h.path === 'faq.md'));
  });

  it('a file with no text fails with the reason, and an embeddings outage marks the file failed after its retries', async () => {
    const { agent } = await newAgent();
    await agent.knowledge.put('scan.pdf', await makePdf(['']));
    await agent.knowledge.put('logo.png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    const failed = await settled(() => agent.knowledge.list(), ['scan.pdf', 'logo.png']);
    assert.equal(failed.get('scan.pdf')!.index!.status, 'failed');
    assert.match(failed.get('scan.pdf')!.index!.error!, /text/i);
    assert.equal(failed.get('logo.png')!.index!.status, 'failed');

    server.embeddings.failNext = 100;
    try {
      await agent.knowledge.put('down.md', 'Visitors park behind the building.');
      const down = await settled(() => agent.knowledge.list(), ['down.md']);
      assert.equal(down.get('down.md')!.index!.status, 'failed');
      assert.match(down.get('down.md')!.index!.error!, /Embeddings \(HTTP 500\)/);
    } finally {
      server.embeddings.failNext = 0;
    }
    // Putting it again retries.
    await agent.knowledge.put('down.md', 'Visitors park behind the building.');
    const up = await settled(() => agent.knowledge.list(), ['down.md']);
    assert.equal(up.get('down.md')!.index!.status, 'indexed');
  });

  it('project files are indexed too and searched with scope project', async () => {
    const { ws, apiKey, workspaceId } = await newAgent();
    const member = await ws.agents.create({ name: 'Member', tools: ['knowledge.search'] });
    const project = await ws.projects.create({ name: 'Launch', agents: [member.id] });
    const put = await fetch(`${api.baseURL}/v1/projects/${project.id}/files/plan/leave.md`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/markdown' },
      body: '# Leave\n\nEach person takes twenty-five days of annual leave a year.\n',
    });
    assert.equal(put.status, 200, await put.text());
    const files = await settled(() => ws.project(project.id).files('plan'), ['plan/leave.md']);
    assert.equal(files.get('plan/leave.md')!.index!.status, 'indexed');

    const tool = knowledgeTool({ repos: repos(), embedder: embedder() });
    const ctx = { workspaceId, agentId: member.id, conversationId: 'cnv_x', turnId: 'trn_x', drive: projectSpace(project.id), agent: {} as never };
    const r = await tool.run(ctx, { query: 'How many vacation days do we get?', scope: 'project' }, AbortSignal.timeout(10_000));
    assert.ok(r.ok, r.content);
    assert.match(r.content, /^\[1\] plan\/leave\.md, section "Leave"/, r.content);
    const outside = await tool.run({ ...ctx, drive: 'drive:cnv_x' }, { query: 'leave', scope: 'project' }, AbortSignal.timeout(10_000));
    assert.equal(outside.ok, false);
    assert.match(outside.content, /belongs to no project/);
  });

  it('a file written without a signal (before the index existed, or while Temporal was away) is indexed when a worker starts', async () => {
    const { agentId, workspaceId, agent } = await newAgent();
    // Straight to the table: nothing tells the space's workflow, as for files older than migration 025.
    const put = await repos().files.put({ workspaceId, space: knowledgeSpace(agentId), path: 'old.md', content: Buffer.from('# Leave\n\nTwenty-five days of annual leave.'), mimeType: 'text/markdown' });
    assert.ok('entry' in put && put.entry.index?.status === 'pending');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal((await agent.knowledge.list())[0]!.index!.status, 'pending', 'no workflow was told');
    await stack.killWorkers();
    await stack.startWorker();
    const indexed = await settled(() => agent.knowledge.list(), ['old.md']);
    assert.equal(indexed.get('old.md')!.index!.status, 'indexed');
  });

  it('an indexing workflow survives its worker killed mid-embedding, ends once, and the index is exact', async () => {
    const { agent, agentId } = await newAgent();
    const space = knowledgeSpace(agentId);
    // Enough paragraphs for three embeddings batches, each slowed so the kill lands inside one.
    const paragraphs = Array.from({ length: EMBED_BATCH * 2 + 20 }, (_, i) => `Paragraph ${i}: ${'the courier sends parcels on weekdays. '.repeat(25)}`);
    server.embeddings.delayMs = 1500;
    const calls = () => server.requests.filter((r) => r.path.endsWith('/embeddings')).length;
    const callsBefore = calls();
    try {
      await agent.knowledge.put('big.md', paragraphs.join('\n\n'));
      await waitFor('the first embeddings request', calls, (n) => n > callsBefore, 30_000);
      await stack.killWorkers();
      server.embeddings.delayMs = 0;
      await stack.startWorker();
      const done = await settled(() => agent.knowledge.list(), ['big.md']);
      assert.equal(done.get('big.md')!.index!.status, 'indexed', JSON.stringify(done.get('big.md')));
    } finally {
      server.embeddings.delayMs = 0;
    }
    const rows: Array<{ ord: number }> = await api.db('knowledge_chunks').where({ space, path: 'big.md' }).orderBy('ord').select('ord');
    assert.deepEqual(
      rows.map((r) => r.ord),
      rows.map((_, i) => i),
      'each chunk stored once, in order',
    );
    assert.ok(rows.length > EMBED_BATCH * 2, `${rows.length} chunks`);

    const f = fixture();
    const connection = await Connection.connect({ address: f.temporalAddress });
    try {
      const client = new TemporalClient({ connection });
      await waitFor('the workflow to end', async () => (await client.workflow.getHandle(knowledgeIndexWorkflowId(space)).describe()).status.name, (s) => s !== 'RUNNING', 30_000);
      const runs: string[] = [];
      for await (const w of client.workflow.list({ query: `WorkflowId = '${knowledgeIndexWorkflowId(space)}'` })) runs.push(w.status.name);
      assert.deepEqual(runs, ['COMPLETED'], 'one run of the workflow, completed once');
    } finally {
      await connection.close();
    }
  });
});
