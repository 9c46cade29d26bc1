import assert from 'node:assert/strict';
import { newId } from '../../domain/ids';
import { call, type ErrorJson } from '../../harness/http';
import { type ConversationSummary, Service, type WorkspaceClient } from '../../sdk/src';
import { type RunningApi, useTestApi } from '../support/api';

/**
 * `GET /v1/conversations` (issue 51): the workspace's conversations across agents and projects,
 * each filter, keyset pages, who sees what, and bad input. Conversations, turns, messages and
 * approvals are written as rows with chosen times, so the order and each status are exact; the
 * reads go through the API (the SDK's `ws.conversations`).
 */

interface Seed {
  agentId?: string;
  projectId?: string;
  version?: number;
  title?: string;
  endUserId?: string;
  startedBy?: string;
  parentTurnId?: string;
  evalRunId?: string;
  /** Minutes after a fixed base time. */
  at: number;
  messages?: string[];
  /** The latest turn's status; `waiting`: running with a pending approval. */
  turn?: 'running' | 'done' | 'error' | 'cancelled' | 'waiting';
}

const BASE = Date.parse('2026-03-01T00:00:00Z');
const minutes = (m: number) => new Date(BASE + m * 60_000);

/** Writes the conversation, an older `done` turn and its latest turn, and its messages; returns its id and the latest turn's. */
async function seed(api: RunningApi, workspaceId: string, s: Seed): Promise<{ id: string; turnId: string | undefined }> {
  const id = newId('conversation');
  await api.db('conversations').insert({
    id,
    workspace_id: workspaceId,
    agent_id: s.agentId ?? null,
    project_id: s.projectId ?? null,
    version: s.agentId ? (s.version ?? 1) : null,
    title: s.title ?? null,
    started_at: minutes(s.at),
    end_user_id: s.endUserId ?? null,
    started_by: s.startedBy ?? null,
    parent_turn_id: s.parentTurnId ?? null,
    parent_call_id: s.parentTurnId ? `call-${id}` : null,
    eval_run_id: s.evalRunId ?? null,
    eval_case_id: s.evalRunId ? 'case-1' : null,
  });
  let turnId: string | undefined;
  if (s.turn) {
    // An older finished turn first: the status is the latest turn's, not any turn's.
    await api.db('turns').insert({ id: newId('turn'), conversation_id: id, workspace_id: workspaceId, status: 'done', started_at: minutes(s.at), finished_at: minutes(s.at) });
    turnId = newId('turn');
    const status = s.turn === 'waiting' ? 'running' : s.turn;
    await api.db('turns').insert({
      id: turnId, conversation_id: id, workspace_id: workspaceId, status, started_at: minutes(s.at + 0.5), finished_at: status === 'running' ? null : minutes(s.at + 0.6),
    });
    if (s.turn === 'waiting') {
      await api.db('tool_approvals').insert({
        id: newId('approval'), turn_id: turnId, tool_call_id: 'call-1', workspace_id: workspaceId, conversation_id: id, agent_id: s.agentId ?? 'agt_none',
        tool: 'refund', arguments: '{}', approver: 'builder', timeout_ms: 60_000, expires_at: new Date(Date.now() + 60_000),
      });
    }
  }
  for (const [i, content] of (s.messages ?? []).entries()) {
    await api.db('messages').insert({ conversation_id: id, role: i % 2 === 0 ? 'user' : 'assistant', content, at: minutes(s.at) });
  }
  return { id, turnId };
}

const ids = (items: ConversationSummary[]) => items.map((c) => c.id);

describe('Conversation search: GET /v1/conversations across the workspace', () => {
  const api = useTestApi();

  async function workspace(): Promise<{ ws: WorkspaceClient; workspaceId: string; apiKey: string; keyId: string }> {
    const { workspace: w, apiKey, keyId } = await api.newWorkspace();
    return { ws: new Service({ apiKey, baseURL: api.baseURL }), workspaceId: w.id, apiKey, keyId };
  }

  it('filters by agent, version, project, end user, time and text; eval runs stay out; every item carries its latest turn', async () => {
    const { ws, workspaceId } = await workspace();
    const a = (await ws.agents.create({ name: 'Support' })).id;
    const b = (await ws.agents.create({ name: 'Billing' })).id;
    const p = (await ws.projects.create({ name: 'Launch' })).id;
    const c1 = await seed(api, workspaceId, { agentId: a, version: 1, at: 1, title: 'Refund for order 77', endUserId: 'u-1', turn: 'done' });
    const c2 = await seed(api, workspaceId, { agentId: a, version: 2, at: 2, title: 'Hello', messages: ['hi', 'The INVOICE-2026 is attached'] });
    const c3 = await seed(api, workspaceId, { agentId: b, version: 1, at: 3, title: 'Shipping', endUserId: 'u-2' });
    const c4 = await seed(api, workspaceId, { projectId: p, at: 4, title: 'Plan the launch' });
    await seed(api, workspaceId, { agentId: a, version: 1, at: 5, title: 'Refund eval', evalRunId: 'run_x' });

    assert.deepEqual(ids((await ws.conversations.search()).data), [c4.id, c3.id, c2.id, c1.id], 'newest first, no eval-run conversation');
    assert.deepEqual(ids((await ws.conversations.search({ agentId: a })).data), [c2.id, c1.id]);
    assert.deepEqual(ids((await ws.conversations.search({ agentId: a, version: 2 })).data), [c2.id]);
    assert.deepEqual(ids((await ws.conversations.search({ projectId: p })).data), [c4.id]);
    assert.deepEqual(ids((await ws.conversations.search({ endUserId: 'u-2' })).data), [c3.id]);
    assert.deepEqual(ids((await ws.conversations.search({ since: minutes(2), until: minutes(4) })).data), [c3.id, c2.id], 'since inclusive, until exclusive');
    assert.deepEqual(ids((await ws.conversations.search({ q: 'REFUND' })).data), [c1.id], 'the title, case-insensitive');
    assert.deepEqual(ids((await ws.conversations.search({ q: 'invoice 20' })).data), [c2.id], "a message's content, each word as a prefix");
    assert.deepEqual(ids((await ws.conversations.search({ q: 'nothing-like-it' })).data), []);

    const [first] = (await ws.conversations.search({ agentId: a, version: 1 })).data;
    assert.equal(first?.lastTurn?.id, c1.turnId);
    assert.deepEqual(
      { ...first, lastTurn: { ...first!.lastTurn, startedAt: undefined, finishedAt: undefined } },
      {
        id: c1.id, agentId: a, projectId: null, version: 1, title: 'Refund for order 77', endUser: { id: 'u-1', verified: true },
        startedAt: minutes(1).toISOString(), endedAt: null,
        lastTurn: { id: c1.turnId, status: 'done', waiting: false, startedAt: undefined, finishedAt: undefined },
      },
    );
    assert.equal((await ws.conversations.search({ projectId: p })).data[0]?.lastTurn, null, 'no turn yet');
  });

  it('filters by the latest turn\'s status; `waiting` is a running turn with a pending approval', async () => {
    const { ws, workspaceId } = await workspace();
    const a = (await ws.agents.create({ name: 'Ops' })).id;
    const made: Record<string, string> = {};
    for (const [i, turn] of (['running', 'done', 'error', 'cancelled', 'waiting'] as const).entries()) {
      made[turn] = (await seed(api, workspaceId, { agentId: a, at: i, turn })).id;
    }
    for (const status of ['running', 'done', 'error', 'cancelled', 'waiting'] as const) {
      const page = await ws.conversations.search({ status });
      assert.deepEqual(ids(page.data), [made[status]], status);
      assert.equal(page.data[0]?.lastTurn?.waiting, status === 'waiting');
    }
  });

  it('the cursor walks every page once, newest first, with ties on the start time broken by id', async () => {
    const { ws, workspaceId } = await workspace();
    const a = (await ws.agents.create({ name: 'Many' })).id;
    const all: Array<{ id: string; at: number }> = [];
    // 23 conversations, three to a minute: pages of 5 cut through ties.
    for (let i = 0; i < 23; i++) all.push({ id: (await seed(api, workspaceId, { agentId: a, at: Math.floor(i / 3) })).id, at: Math.floor(i / 3) });
    const expected = [...all].sort((x, y) => y.at - x.at || (x.id < y.id ? 1 : -1)).map((c) => c.id);
    const walked: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await ws.conversations.search({ limit: 5, cursor });
      walked.push(...ids(page.data));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    assert.deepEqual(walked, expected, 'no duplicates, no gaps, in order');
    const viaAll: string[] = [];
    for await (const c of ws.conversations.all()) viaAll.push(c.id);
    assert.deepEqual(viaAll, expected);
  });

  it("a viewer key sees only the project conversations it started and their delegations; another workspace's never appear", async () => {
    const { ws, workspaceId, keyId: ownerKey } = await workspace();
    const { key, apiKey: viewerKey } = await ws.keys.create({ name: 'watcher', role: 'viewer' });
    const viewer = new Service({ apiKey: viewerKey, baseURL: api.baseURL });
    const a = (await ws.agents.create({ name: 'Member' })).id;
    const p = (await ws.projects.create({ name: 'Team' })).id;
    const mine = await seed(api, workspaceId, { projectId: p, at: 1, startedBy: key.id, turn: 'done' });
    const delegated = await seed(api, workspaceId, { agentId: a, projectId: p, at: 2, parentTurnId: mine.turnId });
    const ownersProject = await seed(api, workspaceId, { projectId: p, at: 3, startedBy: ownerKey });
    const myAgentOne = await seed(api, workspaceId, { agentId: a, at: 4, startedBy: key.id });

    assert.deepEqual(ids((await viewer.conversations.search()).data), [delegated.id, mine.id]);
    assert.deepEqual(ids((await ws.conversations.search()).data), [myAgentOne.id, ownersProject.id, delegated.id, mine.id], 'the owner sees all');

    const other = await workspace();
    const elsewhere = (await other.ws.agents.create({ name: 'Elsewhere' })).id;
    const theirs = await seed(api, other.workspaceId, { agentId: elsewhere, at: 5, title: 'Team plan' });
    assert.deepEqual(ids((await ws.conversations.search()).data), [myAgentOne.id, ownersProject.id, delegated.id, mine.id]);
    assert.deepEqual(ids((await ws.conversations.search({ agentId: elsewhere })).data), [], 'not by naming their agent');
    assert.deepEqual(ids((await ws.conversations.search({ q: 'team plan' })).data), [], 'not by their text');
    assert.deepEqual(ids((await other.ws.conversations.search()).data), [theirs.id]);
  });

  it('bad input is a 400 invalid_request naming the field', async () => {
    const { apiKey } = await workspace();
    const cases: Array<[string, string]> = [
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['version=2', 'query.version'],
      ['agentId=agt_x&version=0', 'query.version'],
      ['status=paused', 'query.status'],
      ['since=yesterday', 'query.since'],
      ['q=%21%21%21', 'query.q'],
      [`q=${'a'.repeat(201)}`, 'query.q'],
      ['cursor=bm90LWEtY3Vyc29y', 'query.cursor'],
      ['cursor=%2F%2F', 'query.cursor'],
      ['sort=asc', 'query.sort'],
    ];
    for (const [query, field] of cases) {
      const res = await call<ErrorJson>(api.baseURL, 'GET', `/v1/conversations?${query}`, { apiKey, signal: AbortSignal.timeout(10_000) });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'invalid_request', query);
      assert.ok(res.body.error.message.startsWith(`${field}:`), `${query}: ${res.body.error.message}`);
    }
  });
});
