import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { call } from '../../harness/http';

interface ProbeAnswer {
  probeId: string;
  workflowId: string;
  taskQueue: string;
  workerIdentity: string;
  ms: number;
}

describe('round trip: API → Temporal → worker → Postgres', () => {
  const api = useTestApi();

  for (const queue of ['ops', 'turns'] as const) {
    it(`a probe started by the API runs on the "${queue}" worker and writes its row`, async () => {
      const { workspace, apiKey } = await api.newWorkspace({ diagnostics: true });
      const res = await call<ProbeAnswer>(api.baseURL, 'POST', '/v1/diagnostics/round-trip', { apiKey, body: { queue } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.taskQueue.endsWith(queue), `ran on ${res.body.taskQueue}`);

      const row = await api.repos.probes.find({ id: res.body.probeId });
      assert.deepEqual(row, { id: res.body.probeId, workspaceId: workspace.id, taskQueue: res.body.taskQueue });

      const description = await api.temporal.workflow.getHandle(res.body.workflowId).describe();
      assert.equal(description.status.name, 'COMPLETED');
    });
  }

  it('the run is findable by its WorkspaceId search attribute', async () => {
    const { workspace, apiKey } = await api.newWorkspace({ diagnostics: true });
    const res = await call<ProbeAnswer>(api.baseURL, 'POST', '/v1/diagnostics/round-trip', { apiKey, body: {} });
    assert.equal(res.status, 200);
    // Visibility is eventually consistent; poll briefly (bounded).
    const deadline = Date.now() + 10_000;
    let found: string[] = [];
    while (Date.now() < deadline) {
      found = [];
      for await (const wf of api.temporal.workflow.list({ query: `WorkspaceId = "${workspace.id}"` })) found.push(wf.workflowId);
      if (found.length > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(found, [res.body.workflowId]);
  });
});
