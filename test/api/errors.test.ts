import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../../harness/http';

describe('API errors and health', () => {
  const api = useTestApi();
  let apiKey: string;
  before(async () => {
    ({ apiKey } = await api.newWorkspace());
  });

  /** The workflow ids Temporal lists for a workspace, once `expected` is among them (visibility lags a little). */
  async function workflowsOf(workspaceId: string, expected: string): Promise<string[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const ids: string[] = [];
      for await (const wf of api.temporal.workflow.list({ query: `WorkspaceId = "${workspaceId}"` })) ids.push(wf.workflowId);
      if (ids.includes(expected) || Date.now() > deadline) return ids;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('an unknown route answers 404 JSON, with or without a key', async () => {
    for (const path of ['/nope', '/v1/nope', '/v1/workspace/extra']) {
      const res = await call<ErrorJson>(api.baseURL, 'GET', path, { apiKey });
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, 'not_found');
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    }
    const anonymous = await call<ErrorJson>(api.baseURL, 'GET', '/elsewhere');
    assert.equal(anonymous.status, 404);
  });

  it('a method a path does not serve answers 404 JSON, not an HTML page or a 405', async () => {
    const res = await call<ErrorJson>(api.baseURL, 'DELETE', '/v1/workspace', { apiKey });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
  });

  it('a body with a bad field answers 400 naming the field path, and nothing runs', async () => {
    const { workspace, apiKey: key } = await api.newWorkspace({ diagnostics: true });
    const res = await call<ErrorJson>(api.baseURL, 'POST', '/v1/diagnostics/round-trip', { apiKey: key, body: { queue: 'elsewhere' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.match(res.body.error.message, /^body\.queue: /);

    // Then a good probe of the same workspace: once its run is listed, a run the bad request had
    // started would be listed too. Only the good probe ran and wrote its row.
    const ok = await call<{ probeId: string; workflowId: string }>(api.baseURL, 'POST', '/v1/diagnostics/round-trip', { apiKey: key, body: { queue: 'ops' } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(await workflowsOf(workspace.id, ok.body.workflowId), [ok.body.workflowId]);
    assert.deepEqual(await api.db('probes').where({ workspace_id: workspace.id }).pluck('id'), [ok.body.probeId]);
  });

  it('an unknown field answers 400 naming it', async () => {
    const res = await call<ErrorJson>(api.baseURL, 'POST', '/v1/diagnostics/round-trip', { apiKey, body: { queue: 'ops', extra: 1 } });
    assert.equal(res.status, 400);
    assert.match(res.body.error.message, /^body\.extra: unknown field/);
  });

  it('malformed JSON answers 400 invalid_json', async () => {
    const res = await call<ErrorJson>(api.baseURL, 'POST', '/v1/diagnostics/round-trip', { apiKey, rawBody: '{"queue":' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'invalid_json');
  });

  it('a body over the limit answers 400 body_too_large', async () => {
    const huge = JSON.stringify({ queue: 'x'.repeat(fixture().config.BODY_LIMIT_BYTES + 10) });
    const res = await call<ErrorJson>(api.baseURL, 'POST', '/v1/diagnostics/round-trip', { apiKey, rawBody: huge });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'body_too_large');
  });

  it('every answer carries a request id', async () => {
    const res = await call(api.baseURL, 'GET', '/healthz');
    assert.match(res.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
    const echoed = await call(api.baseURL, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'trace-123');
  });

  it('/healthz and /readyz answer without a key when Postgres and Temporal are up', async () => {
    assert.deepEqual((await call(api.baseURL, 'GET', '/healthz')).body, { status: 'ok' });
    const ready = await call(api.baseURL, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
  });
});
