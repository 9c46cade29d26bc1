import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createDb, type Db } from '../db/connect';
import { migrateLatest } from '../db/migrate';
import { createRepositories } from '../db/repositories';
import type { SqlCondition } from '../db/repositories/conversation-search';
import type { ConversationSearchFilters } from '../domain/conversation-search';
import { freshDatabase } from '../harness/database';
import { ConversationAccess } from '../services/conversation-access';
import { percentile } from './lib/stats';

/**
 * The workspace-wide conversation search (`GET /v1/conversations`, issue 51) at the console's
 * target size: 20,000 conversations with 100,000 turns and 200,000 messages in one workspace
 * (and 5,000 in another), seeded with SQL on a fresh database. For each filter it prints the
 * indexes PostgreSQL's plan uses (EXPLAIN ANALYZE) and the p50/p99 of the repository's query.
 * Target: p50 ≤ 50 ms. Run: `node --require tsx/cjs bench/conversation-search.ts`.
 */

const CONVERSATIONS = 20_000;
const TURNS_EACH = 5;
const RUNS = 25;
const VIEWER = 'key_benchviewer';

async function seed(db: Db, workspaceId: string, count: number, agentIds: string[], projectId: string): Promise<void> {
  await db.raw(
    `insert into conversations (id, workspace_id, agent_id, project_id, version, title, started_at, end_user_id, started_by)
     select ? || i, ?,
            case when i % 20 = 0 then null else (?::text[])[1 + i % ?] end,
            case when i % 20 = 0 then ? end,
            case when i % 20 = 0 then null else 1 + i % 3 end,
            'Question ' || i || ' about ' || (array['refunds','shipping','invoices','passwords','billing'])[1 + i % 5],
            timestamptz '2026-01-01' + i * interval '7 minutes' + (i % 997) * interval '1 microsecond',
            'user-' || (i % 2000),
            case when i % 100 = 0 then ? end
       from generate_series(1, ?) i`,
    [`cnv_${workspaceId}_`, workspaceId, agentIds, agentIds.length, projectId, VIEWER, count],
  );
  await db.raw(
    `insert into turns (id, conversation_id, workspace_id, status, started_at, finished_at)
     select c.id || '_t' || k, c.id, c.workspace_id,
            case when k < ? then 'done'
                 else (array['done','done','done','done','done','done','done','done','done','done','done','done','done','done','done','done','done','error','cancelled','running'])[1 + (hashtext(c.id) & 1023) % 20] end,
            c.started_at + k * interval '1 minute',
            case when k < ? or (hashtext(c.id) & 1023) % 20 <> 19 then c.started_at + k * interval '1 minute' + interval '5 seconds' end
       from conversations c, generate_series(1, ?) k where c.workspace_id = ?`,
    [TURNS_EACH, TURNS_EACH, TURNS_EACH, workspaceId],
  );
  await db.raw(
    `insert into messages (conversation_id, turn_id, role, content, at)
     select t.conversation_id, t.id, r.role,
            case when r.role = 'user' then 'Could you look at order ' || (hashtext(t.id) & 65535) || ' please'
                 else 'Here is what I found about the ' || (array['refund','parcel','invoice','account','plan'])[1 + (hashtext(t.id) & 1023) % 5] || ' you asked about'
                 || case when (hashtext(t.id) & 65535) % 5000 = 0 then ' (zanzibar)' else '' end end,
            t.started_at
       from turns t, (values ('user'), ('assistant')) r(role) where t.workspace_id = ?`,
    [workspaceId],
  );
  // A pending approval on some running latest turns: the `waiting` ones.
  await db.raw(
    `insert into tool_approvals (id, turn_id, tool_call_id, workspace_id, conversation_id, agent_id, tool, arguments, approver, timeout_ms, expires_at)
     select 'apr_' || t.id, t.id, 'call-1', t.workspace_id, t.conversation_id, coalesce(c.agent_id, 'none'), 'refund', '{}', 'builder', 60000, now() + interval '1 day'
       from turns t join conversations c on c.id = t.conversation_id
      where t.workspace_id = ? and t.status = 'running' and hashtext(t.id) % 2 = 0`,
    [workspaceId],
  );
}

async function newWorkspace(db: Db, name: string): Promise<{ id: string; agents: string[]; project: string }> {
  const repos = createRepositories(db);
  const ws = await repos.workspaces.create({ name, credits: 0 });
  const agents = Array.from({ length: 10 }, (_, i) => `agt_${ws.id}_${i}`);
  await db('agents').insert(agents.map((id) => ({ id, workspace_id: ws.id, role: 'freelancer', current_version: 1 })));
  const project = `prj_${ws.id}`;
  await db('projects').insert({ id: project, workspace_id: ws.id, name: 'Bench', grade: 'standard' });
  return { id: ws.id, agents, project };
}

/** The index names in an EXPLAIN ANALYZE plan, and its execution time. */
async function explain(client: pg.Client, sql: string, bindings: unknown[]): Promise<{ indexes: string[]; ms: number; seqScans: string[] }> {
  // The statement as knex sent it ($1… placeholders), through pg itself.
  const result = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, costs off) ${sql}`, bindings);
  const plan = result.rows.map((r) => r['QUERY PLAN']).join('\n');
  const indexes = [...new Set([...plan.matchAll(/ on (?:\w+ )?using (\w+)|Index (?:Only )?Scan (?:Backward )?using (\w+)|Bitmap Index Scan on (\w+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? ''))];
  const seqScans = [...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1] ?? ''))];
  if (process.env.BENCH_PLANS) console.log(plan);
  return { indexes, seqScans, ms: Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1] ?? NaN) };
}

async function main(): Promise<void> {
  const fresh = await freshDatabase({ prefix: 'bench_convsearch', log: () => undefined });
  const db = createDb({ url: fresh.url, poolMax: 2 });
  const client = new pg.Client({ connectionString: fresh.url });
  try {
    await client.connect();
    await migrateLatest(db);
    const started = performance.now();
    const target = await newWorkspace(db, 'Target');
    const other = await newWorkspace(db, 'Other');
    await seed(db, target.id, CONVERSATIONS, target.agents, target.project);
    await seed(db, other.id, 5_000, other.agents, other.project);
    await db.raw('analyze');
    const counts = (await db.raw<{ rows: Array<Record<string, string>> }>(
      `select (select count(*) from conversations) c, (select count(*) from turns) t, (select count(*) from messages) m, (select count(*) from tool_approvals) a`,
    )).rows[0];
    console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(counts)}`);

    const repos = createRepositories(db);
    let last: { sql: string; bindings: unknown[] } | undefined;
    db.on('query', (q: { sql: string; bindings?: unknown[] }) => {
      if (q.sql.includes('from "conversations" as "conv"')) last = { sql: q.sql, bindings: q.bindings ?? [] };
    });
    const viewerAccess = new ConversationAccess(db).readableFilter(
      { kind: 'key', id: VIEWER, role: 'viewer', workspaceId: target.id },
      { id: 'conv.id', startedBy: 'conv.started_by', parentTurnId: 'conv.parent_turn_id' },
    );
    const page5 = await (async () => {
      let cursor: string | undefined;
      for (let i = 0; i < 5; i++) cursor = (await repos.conversationSearch.search({ workspaceId: target.id, filters: {}, access: undefined, cursor, limit: 50 }))?.nextCursor ?? undefined;
      return cursor;
    })();
    const cases: Array<[string, ConversationSearchFilters, SqlCondition | undefined, string | undefined]> = [
      ['no filter', {}, undefined, undefined],
      ['cursor (page 6)', {}, undefined, page5],
      ['agentId', { agentId: target.agents[3] }, undefined, undefined],
      ['agentId+version', { agentId: target.agents[3], version: 2 }, undefined, undefined],
      ['projectId', { projectId: target.project }, undefined, undefined],
      ['endUserId', { endUserId: 'user-42' }, undefined, undefined],
      ['since+until', { since: '2026-02-01T00:00:00Z', until: '2026-02-03T00:00:00Z' }, undefined, undefined],
      ['status=done', { status: 'done' }, undefined, undefined],
      ['status=error', { status: 'error' }, undefined, undefined],
      ['status=running', { status: 'running' }, undefined, undefined],
      ['status=waiting', { status: 'waiting' }, undefined, undefined],
      ['q common (invoice)', { q: 'invoice' }, undefined, undefined],
      ['q rare (zanzibar)', { q: 'zanzibar' }, undefined, undefined],
      ['q title (question 1234)', { q: 'question 1234' }, undefined, undefined],
      ['viewer', {}, viewerAccess, undefined],
    ];
    const rows: Array<Record<string, unknown>> = [];
    for (const [name, filters, access, cursor] of cases) {
      const run = () => repos.conversationSearch.search({ workspaceId: target.id, filters, access, cursor, limit: 50 });
      const first = await run();
      const plan = await explain(client, last!.sql, last!.bindings);
      const samples: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await run();
        samples.push(performance.now() - t0);
      }
      rows.push({
        filter: name, items: first?.data.length, p50: percentile(samples, 50).toFixed(1), p99: percentile(samples, 99).toFixed(1),
        explainMs: plan.ms.toFixed(1), indexes: plan.indexes.join(' '), seqScans: plan.seqScans.join(' ') || '-',
      });
    }
    console.table(rows);
  } finally {
    await client.end();
    await db.destroy();
    await fresh.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
