import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../../harness/http';
import { runCli } from '../../harness/cli';
import { assertRateLimited } from '../support/limits';

describe('limits: the diagnostics probe', () => {
  const api = useTestApi(() => ({ config: { ...fixture().config, DIAGNOSTICS_PER_MINUTE: 2, PROBE_RETENTION_DAYS: 1 } }));
  const probe = (apiKey: string) => call<ErrorJson & { probeId: string }>(api.baseURL, 'POST', '/v1/diagnostics/round-trip', { apiKey, body: { queue: 'ops' } });

  it('answers 404 to a workspace an operator has not allowed, and runs nothing', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const res = await probe(apiKey);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
    assert.equal(await api.db('probes').where({ workspace_id: workspace.id }).count<{ count: string }[]>({ count: '*' }).first().then((r) => Number(r?.count)), 0);

    await api.repos.workspaces.setDiagnosticsAllowed({ id: workspace.id, allowed: true });
    assert.equal((await probe(apiKey)).status, 200);
  });

  it('an allowed workspace runs it at most DIAGNOSTICS_PER_MINUTE times a minute; another is unaffected', async () => {
    const { apiKey } = await api.newWorkspace({ diagnostics: true });
    assert.equal((await probe(apiKey)).status, 200);
    assert.equal((await probe(apiKey)).status, 200);
    assertRateLimited(await probe(apiKey), 'third probe');
    const other = await api.newWorkspace({ diagnostics: true });
    assert.equal((await probe(other.apiKey)).status, 200);
  });

  it('rows older than PROBE_RETENTION_DAYS are deleted when a probe runs (besides the workers\' pruning)', async () => {
    const { workspace, apiKey } = await api.newWorkspace({ diagnostics: true });
    const old = { id: `prb_old${Date.now()}`, workspace_id: workspace.id, task_queue: 'ops', worker_identity: 'w', created_at: api.db.raw(`now() - interval '26 hours'`) };
    const recent = { ...old, id: `prb_recent${Date.now()}`, created_at: api.db.raw(`now() - interval '10 minutes'`) };
    await api.db('probes').insert([old, recent]);
    const res = await probe(apiKey);
    assert.equal(res.status, 200);
    const left = await api.db('probes').where({ workspace_id: workspace.id }).orderBy('id').pluck('id');
    assert.deepEqual(left.sort(), [recent.id, res.body.probeId].sort());
  });

  it('the operator flag is set and cleared with `hosted-agents workspace diagnostics`', async () => {
    const { workspace, apiKey } = await api.newWorkspace();
    const env = { DATABASE_URL: fixture().databaseUrl };
    const allow = await runCli(['workspace', 'diagnostics', workspace.id, '--allow', '--json'], env);
    assert.equal(allow.code, 0, allow.stderr);
    assert.deepEqual(JSON.parse(allow.stdout), { id: workspace.id, diagnostics: true });
    assert.equal((await probe(apiKey)).status, 200);
    const deny = await runCli(['workspace', 'diagnostics', workspace.id, '--deny'], env);
    assert.equal(deny.code, 0, deny.stderr);
    assert.equal((await probe(apiKey)).status, 404);
    assert.equal((await runCli(['workspace', 'diagnostics', workspace.id], env)).code, 2, 'neither --allow nor --deny');
  });
});
