import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AuditRow } from '../../db/repositories/audit';
import type { AuditEvent } from '../../domain/audit';
import { randomToken } from '../../domain/ids';
import { call, type ErrorJson } from '../../harness/http';
import { Service } from '../../sdk/src';
import { type RunningApi, useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { freelancer } from '../support/publishing';
import { waitFor } from '../support/wait';
import { isolatedConfig, isolatedEnv, startInProcessWorker } from '../support/workers';

/**
 * The audit log (issue 50, item 6; docs/security.md, "Audit log"): what a call writes, what it
 * never writes, that the database itself refuses changes to it, the owners' API over it, and
 * its retention.
 */

interface Page {
  data: AuditEvent[];
  nextCursor: string | null;
}

type Row = AuditRow;

const rowsOf = (api: RunningApi, workspaceId: string, where: Partial<Row> = {}) =>
  api.db('audit_events').where({ ...where, workspace_id: workspaceId }).orderBy('seq').select<Row[]>('*');

/** The ISO time `d` days ago. Backdated rows stay within the default retention (400 days), so no worker's prune races a test. */
const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();

/** A row with an explicit time (INSERT is allowed; only the app's own rows get `now()`). */
function backdated(workspaceId: string, at: string, action = 'backdated'): Record<string, unknown> {
  return { id: `aud_${randomToken(20)}`, workspace_id: workspaceId, at, actor_kind: 'system', action, outcome: 'ok' };
}

describe('Audit log: the database keeps it append-only', () => {
  const api = useTestApi();

  it('UPDATE, DELETE and TRUNCATE of audit_events are refused by PostgreSQL, for the service\'s own database user', async () => {
    const { workspace } = await api.newWorkspace();
    const id = await api.repos.audit.append({ workspaceId: workspace.id, actor: { kind: 'system' }, action: 'probe', targets: {}, outcome: 'ok' });
    const refused = /audit_events is append-only/;
    await assert.rejects(api.db('audit_events').where({ id }).update({ outcome: 'tampered' }), refused);
    await assert.rejects(api.db('audit_events').where({ id }).delete(), refused);
    await assert.rejects(api.db.raw('truncate audit_events'), refused);
    // Even a statement that matches no row: the refusal is of the statement.
    await assert.rejects(api.db('audit_events').where({ id: 'aud_none' }).delete(), refused);
    const [row] = await api.db('audit_events').where({ id }).select<Row[]>('*');
    assert.equal(row?.outcome, 'ok', 'the row is unchanged');
  });

  it('audit_prune deletes only rows older than its cutoff, at most its limit, and lends nothing to the rest of its transaction', async () => {
    const { workspace } = await api.newWorkspace();
    const ws = workspace.id;
    await api.db('audit_events').insert([
      backdated(ws, daysAgo(300), 'oldest'),
      backdated(ws, daysAgo(299), 'older'),
      backdated(ws, daysAgo(298), 'old'),
      backdated(ws, daysAgo(200), 'kept'),
    ]);
    const actions = async () => (await rowsOf(api, ws)).map((r) => r.action).sort();
    const cutoff = new Date(daysAgo(250));
    assert.equal(await api.repos.audit.prune({ before: cutoff, limit: 2 }), 2);
    assert.deepEqual(await actions(), ['kept', 'old'], 'the two oldest first');
    assert.equal(await api.repos.audit.prune({ before: cutoff, limit: 100 }), 1);
    assert.deepEqual(await actions(), ['kept']);
    // The setting that lets the prune delete is cleared when it returns: a DELETE after it, in the same transaction, is refused.
    await assert.rejects(
      api.db.transaction(async (trx) => {
        await trx.raw('select audit_prune(?, ?)', [cutoff, 10]);
        await trx('audit_events').where({ workspace_id: ws }).delete();
      }),
      /append-only/,
    );
    assert.deepEqual(await actions(), ['kept']);
  });
});

describe('Audit log: what a call writes', () => {
  const api = useTestApi();

  it("a mutating call writes one row: actor and role, action, targets, versions, outcome, address, user agent, request id; a GET writes none", async () => {
    const { workspace, apiKey, keyId } = await api.newWorkspace();
    const headers = { 'user-agent': 'audit-test/1.0' };
    const created = await call<{ id: string; version: number }>(api.baseURL, 'POST', '/v1/agents', { apiKey, headers, body: { name: 'Audited' } });
    assert.equal(created.status, 201);
    const agentId = created.body.id;
    const patched = await call<{ version: number }>(api.baseURL, 'PATCH', `/v1/agents/${agentId}`, { apiKey, headers, body: { instructions: 'Be brief.' } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.version, 2);
    assert.equal((await call(api.baseURL, 'GET', `/v1/agents/${agentId}`, { apiKey })).status, 200);
    assert.equal((await call(api.baseURL, 'GET', '/v1/agents', { apiKey })).status, 200);

    const rows = await rowsOf(api, workspace.id);
    assert.deepEqual(rows.map((r) => r.action), ['createAgent', 'updateAgent'], 'one row a mutating call, none for the GETs');
    const [create, update] = rows as [Row, Row];
    for (const [row, res] of [[create, created], [update, patched]] as const) {
      assert.equal(row.actor_kind, 'key');
      assert.equal(row.actor_id, keyId);
      assert.equal(row.actor_role, 'owner');
      assert.equal(row.outcome, 'ok');
      assert.match(row.ip ?? '', /127\.0\.0\.1$/);
      assert.equal(row.user_agent, 'audit-test/1.0');
      assert.ok(res.headers.get('x-request-id'));
      assert.equal(row.request_id, res.headers.get('x-request-id'), 'the request id the answer carried');
    }
    assert.equal(create.status, 201);
    assert.deepEqual(create.targets, { id: agentId }, 'what the create made');
    assert.equal(create.version_before, null);
    assert.equal(create.version_after, 1);
    assert.equal(update.status, 200);
    assert.deepEqual(update.targets, { agentId });
    assert.equal(update.version_before, 1);
    assert.equal(update.version_after, 2);
  });

  it("a refused call is written with its error: a viewer key's PATCH is 403 forbidden", async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const viewer = await api.repos.apiKeys.create({ workspaceId: workspace.id, role: 'viewer' });
    const agent = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Guarded' } });
    const res = await call<ErrorJson>(api.baseURL, 'PATCH', `/v1/agents/${agent.body.id}`, { apiKey: viewer.apiKey, body: { instructions: 'x' } });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'forbidden');
    const rows = await rowsOf(api, workspace.id, { actor_id: viewer.record.id });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.action, 'updateAgent');
    assert.equal(rows[0]?.actor_role, 'viewer');
    assert.equal(rows[0]?.outcome, 'forbidden');
    assert.equal(rows[0]?.status, 403);
    assert.deepEqual(rows[0]?.targets, { agentId: agent.body.id });
    assert.equal(rows[0]?.version_after, null, 'nothing was published');
    // A failed call names its error code too.
    const missing = await call(api.baseURL, 'PATCH', '/v1/agents/agt_nothere', { apiKey, body: { instructions: 'x' } });
    assert.equal(missing.status, 404);
    const [row] = await rowsOf(api, workspace.id, { action: 'updateAgent', outcome: 'agent_not_found' });
    assert.deepEqual(row?.targets, { agentId: 'agt_nothere' });
  });

  it('a secret write records the names only: the values are nowhere in audit_events, and an end user only as the SHA-256 of their id', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const agent = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', {
      apiKey,
      body: { name: 'Keeper', secrets: [{ name: 'API_TOKEN', scope: 'fixed' }], connections: [{ provider: 'gmail', scope: 'fixed' }] },
    });
    const value = `secret-value-${randomToken(24)}`;
    const token = `access-token-${randomToken(24)}`;
    const put = await call(api.baseURL, 'PUT', `/v1/agents/${agent.body.id}/credentials`, {
      apiKey,
      body: { secrets: { API_TOKEN: value }, connections: [{ provider: 'gmail', accessToken: token }] },
    });
    assert.equal(put.status, 204);
    const endUserId = `alice-${randomToken(12)}@example.com`;
    const endUserValue = `end-user-value-${randomToken(24)}`;
    const putEndUser = await call(api.baseURL, 'PUT', `/v1/end-users/${encodeURIComponent(endUserId)}/credentials`, { apiKey, body: { secrets: { CRM_TOKEN: endUserValue } } });
    assert.equal(putEndUser.status, 204);

    const [agentRow] = await rowsOf(api, workspace.id, { action: 'putAgentCredentials' });
    assert.deepEqual(agentRow?.detail, { names: ['API_TOKEN'], connections: ['gmail'] });
    const [endUserRow] = await rowsOf(api, workspace.id, { action: 'putEndUserCredentials' });
    assert.deepEqual(endUserRow?.detail, { names: ['CRM_TOKEN'], connections: [] });
    assert.deepEqual(endUserRow?.targets, { endUserDigest: createHash('sha256').update(endUserId).digest('hex') });
    for (const needle of [value, token, endUserValue, endUserId, 'alice-']) {
      const found = await api.db.raw<{ rows: Array<{ n: number }> }>(`select count(*)::int as n from audit_events a where a::text like '%' || ? || '%'`, [needle]);
      assert.equal(found.rows[0]?.n, 0, `${needle.slice(0, 14)}… is in audit_events`);
    }
  });
});

describe('Audit log: calls over a limit', () => {
  const api = useTestApi(() => ({ config: { ...fixture().config, KEY_REQUESTS_PER_MINUTE: 2 } }));

  it('a call refused by a rate limit (429) writes no row: it changed nothing, and a flood must not cost a write each', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: `n${i}` } })).status);
    assert.ok(statuses.includes(429), `statuses ${statuses.join(',')}`);
    const rows = await rowsOf(api, workspace.id);
    assert.equal(rows.length, statuses.filter((s) => s !== 429).length);
    assert.ok(rows.every((r) => r.outcome === 'ok'));
  });
});

describe('Audit log: rows of members and of the service', () => {
  const api = useTestApi();

  it("a member's row names their e-mail, which stays after they leave; a system row (an erasure's receipt) needs no actor id", async () => {
    const { workspace } = await api.newWorkspace();
    const accountId = `acc_${randomToken(20)}`;
    const memberId = `mem_${randomToken(20)}`;
    const email = `audit-${randomToken(8)}@example.com`;
    await api.db('accounts').insert({ id: accountId, email });
    await api.db('members').insert({ id: memberId, workspace_id: workspace.id, account_id: accountId, role: 'builder' });
    await api.repos.audit.append({ workspaceId: workspace.id, actor: { kind: 'member', id: memberId, role: 'builder' }, action: 'updateAgent', targets: {}, outcome: 'ok' });
    await api.db('members').where({ id: memberId }).delete();
    await api.repos.audit.append({
      workspaceId: workspace.id,
      actor: { kind: 'system' },
      action: 'endUserErased',
      targets: { erasureId: 'era_x', endUserDigest: 'f'.repeat(64) },
      outcome: 'ok',
      detail: { counts: { conversations: 2 } },
    });
    const page = await api.repos.audit.list({ workspaceId: workspace.id, filters: {}, limit: 10 });
    assert.deepEqual(page.data.map((e) => [e.action, e.actor]), [
      ['endUserErased', { kind: 'system', id: null, role: null, email: null }],
      ['updateAgent', { kind: 'member', id: memberId, role: 'builder', email }],
    ]);
    assert.deepEqual(page.data[0]?.detail, { counts: { conversations: 2 } });
  });
});

describe('Audit log: deployments', () => {
  const api = useTestApi();

  it('a deploy and a rollback record the production version before and after, and a skipped eval gate', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Shipped' });
    const post = (path: string, body: unknown) => call(api.baseURL, 'POST', path, { apiKey, body });
    const [v1] = await agent.versionIds();
    assert.equal((await post('/v1/deployments/prod', { versionId: v1!.id, skipEvals: true })).status, 200);
    assert.equal((await call(api.baseURL, 'PATCH', `/v1/agents/${agent.agentId}`, { apiKey, body: { greeting: 'Hello again' } })).status, 200);
    const v2 = (await agent.versionIds()).find((v) => v.number === 2)!;
    assert.equal((await post('/v1/deployments/prod', { versionId: v2.id })).status, 200);
    assert.equal((await post(`/v1/agents/${agent.agentId}/rollback`, { versionId: v1!.id })).status, 204);
    assert.equal((await post('/v1/deployments/test', { versionId: v2.id })).status, 200);

    const rows = (await rowsOf(api, workspace.id)).filter((r) => r.action !== 'createAgent' && r.action !== 'updateAgent');
    const seen = rows.map((r) => ({ action: r.action, targets: r.targets, before: r.version_before, after: r.version_after, detail: r.detail }));
    const targets = (versionId: string) => ({ agentId: agent.agentId, versionId });
    assert.deepEqual(seen, [
      { action: 'deployToProd', targets: targets(v1!.id), before: null, after: 1, detail: { evalGate: 'skipped' } },
      { action: 'deployToProd', targets: targets(v2.id), before: 1, after: 2, detail: {} },
      { action: 'rollback', targets: targets(v1!.id), before: 2, after: 1, detail: {} },
      { action: 'deployToTest', targets: targets(v2.id), before: null, after: 2, detail: {} },
    ]);
  });
});

describe('Audit log: GET /v1/audit and the export', () => {
  const api = useTestApi();
  let ws: string;
  let owner: string;
  let ownerKeyId: string;
  let builder: { apiKey: string; keyId: string };
  const agents: string[] = [];

  const list = async (query: string, apiKey = owner) => {
    const res = await call<Page>(api.baseURL, 'GET', `/v1/audit${query}`, { apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  before(async () => {
    const made = await api.newWorkspace();
    ws = made.workspace.id;
    owner = made.apiKey;
    ownerKeyId = made.keyId;
    const b = await api.repos.apiKeys.create({ workspaceId: ws, role: 'builder' });
    builder = { apiKey: b.apiKey, keyId: b.record.id };
    // Owner: 3 creates and 2 updates; builder: 2 creates. Seven rows, newest last.
    for (const [key, name] of [[owner, 'a'], [owner, 'b'], [owner, 'c'], [builder.apiKey, 'd'], [builder.apiKey, 'e']] as const) {
      const res = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey: key, body: { name } });
      assert.equal(res.status, 201);
      agents.push(res.body.id);
    }
    for (const agentId of agents.slice(0, 2)) {
      assert.equal((await call(api.baseURL, 'PATCH', `/v1/agents/${agentId}`, { apiKey: owner, body: { instructions: 'x' } })).status, 200);
    }
  });

  it('lists newest first, each row with actor, action and targets', async () => {
    const page = await list('');
    assert.deepEqual(page.data.map((e) => e.action), ['updateAgent', 'updateAgent', 'createAgent', 'createAgent', 'createAgent', 'createAgent', 'createAgent']);
    assert.equal(page.nextCursor, null);
    const newest = page.data[0]!;
    assert.deepEqual(newest.actor, { kind: 'key', id: ownerKeyId, role: 'owner', email: null });
    assert.deepEqual(newest.targets, { agentId: agents[1] });
    assert.equal(newest.versionBefore, 1);
    assert.equal(newest.versionAfter, 2);
    assert.match(newest.id, /^aud_/);
    assert.ok(!Number.isNaN(Date.parse(newest.at)));
  });

  it('filters by actor, action, target and time range', async () => {
    assert.deepEqual((await list(`?actor=${builder.keyId}`)).data.map((e) => e.targets.id), [agents[4], agents[3]]);
    assert.equal((await list('?action=updateAgent')).data.length, 2);
    assert.deepEqual((await list(`?target=${agents[0]}`)).data.map((e) => e.action), ['updateAgent', 'createAgent'], 'the target in any key: agentId or id');
    assert.deepEqual((await list(`?actor=${ownerKeyId}&action=createAgent`)).data.map((e) => e.targets.id), [agents[2], agents[1], agents[0]]);
    const [then, later] = [daysAgo(100), daysAgo(99)];
    await api.db('audit_events').insert([backdated(ws, then, 'then'), backdated(ws, later, 'later')]);
    try {
      const range = await list(`?since=${then}&until=${later}`);
      assert.deepEqual(range.data.map((e) => e.action), ['then'], 'since inclusive, until exclusive');
      assert.deepEqual((await list(`?until=${daysAgo(50)}`)).data.map((e) => e.action), ['later', 'then']);
      assert.equal((await list(`?since=${daysAgo(50)}`)).data.length, 7);
    } finally {
      await api.repos.audit.prune({ before: new Date(daysAgo(50)), limit: 10 });
    }
  });

  it('pages with the cursor through more rows than the limit, without duplicates or gaps; export is the same rows as JSON lines', async () => {
    const all = (await list('?limit=200')).data;
    assert.equal(all.length, 7);
    const paged: AuditEvent[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const page: Page = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.data.length <= 2);
      paged.push(...page.data);
      cursor = page.nextCursor;
      if (cursor === null) break;
    }
    assert.equal(cursor, null, 'the last page says so');
    assert.deepEqual(paged, all);

    const res = await fetch(`${api.baseURL}/v1/audit/export`, { headers: { authorization: `Bearer ${owner}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const text = await res.text();
    assert.ok(text.endsWith('\n'));
    assert.deepEqual(text.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditEvent), all);
    const filtered = await fetch(`${api.baseURL}/v1/audit/export?action=updateAgent`, { headers: { authorization: `Bearer ${owner}` } });
    assert.equal((await filtered.text()).trimEnd().split('\n').length, 2);

    // The SDK: one page, and every row through its iterator.
    const sdk = new Service({ apiKey: owner, baseURL: api.baseURL });
    const first = await sdk.audit.list({ limit: 3 });
    assert.deepEqual(first.data, all.slice(0, 3));
    const iterated: AuditEvent[] = [];
    for await (const event of sdk.audit.all({ actor: ownerKeyId })) iterated.push(event);
    assert.deepEqual(iterated, all.filter((e) => e.actor.id === ownerKeyId));
  });

  it('is for owners: a builder key gets 403 forbidden on the list and the export; a bad cursor is a 400 naming it', async () => {
    for (const path of ['/v1/audit', '/v1/audit/export']) {
      const res = await call<ErrorJson>(api.baseURL, 'GET', path, { apiKey: builder.apiKey });
      assert.equal(res.status, 403, path);
      assert.equal(res.body.error.code, 'forbidden');
    }
    const bad = await call<ErrorJson>(api.baseURL, 'GET', '/v1/audit?cursor=abc', { apiKey: owner });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /^query\.cursor/);
    const big = await call<ErrorJson>(api.baseURL, 'GET', '/v1/audit?limit=201', { apiKey: owner });
    assert.equal(big.status, 400);
    assert.match(big.body.error.message, /^query\.limit/);
  });

  it("one workspace never sees another's rows", async () => {
    const other = await api.newWorkspace();
    const res = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey: other.apiKey, body: { name: 'elsewhere' } });
    const theirs = await call<Page>(api.baseURL, 'GET', '/v1/audit', { apiKey: other.apiKey });
    assert.deepEqual(theirs.body.data.map((e) => e.targets.id), [res.body.id]);
    assert.equal((await list(`?target=${res.body.id}`)).data.length, 0);
    const across = await call<Page>(api.baseURL, 'GET', `/v1/audit?target=${agents[0]}`, { apiKey: other.apiKey });
    assert.equal(across.body.data.length, 0);
    const exported = await fetch(`${api.baseURL}/v1/audit/export`, { headers: { authorization: `Bearer ${other.apiKey}` } });
    assert.equal((await exported.text()).trimEnd().split('\n').length, 1);
  });
});

describe('Audit log: retention', () => {
  const api = useTestApi();

  it('a worker prunes audit rows older than AUDIT_RETENTION_DAYS (default 400) and keeps the rest', async () => {
    const { workspace } = await api.newWorkspace();
    await api.db('audit_events').insert([backdated(workspace.id, daysAgo(401), 'expired'), backdated(workspace.id, daysAgo(399), 'kept')]);
    const actions = async () => (await rowsOf(api, workspace.id)).map((r) => r.action);
    // A worker prunes when it starts (then every RETENTION_PRUNE_INTERVAL_SECONDS).
    const worker = await startInProcessWorker(isolatedConfig(isolatedEnv({})));
    try {
      await waitFor('the expired row pruned', actions, (a) => !a.includes('expired'), 15_000);
    } finally {
      await worker.stop();
    }
    assert.deepEqual(await actions(), ['kept']);
  });
});
