import assert from 'node:assert/strict';
import { expectFailure, newSdkWorkspace } from '../support/sdk';
import { waitFor } from '../support/wait';
import { useIsolatedStack } from '../support/isolated-stack';

/**
 * A refused promotion is an expected end, not a fault: the worker's log (as `npm start` prints it)
 * has no warning for it, and the line it does write at debug carries the refusal's message — not
 * `error={}`. The worker is a process of its own, so its log is the one a person reads.
 */
describe("a refused promotion in the worker's log", function () {
  this.timeout(120_000);
  const stack = useIsolatedStack({ worker: 'process', env: { LOG_LEVEL: 'debug', LOG_FORMAT: 'pretty' } });
  const { api } = stack;

  it('is a debug line naming the failing case, with no WARN "Workflow failed" and no empty error', async () => {
    const { ws } = await newSdkWorkspace(api);
    const created = await ws.agents.create({ name: 'Strict', role: 'freelancer' });
    await ws.agent(created.id).evals.put('never', { messages: ['hello'], checks: [{ kind: 'contains', text: 'no model says this' }] });

    const refused = await expectFailure(ws.agents.deployToProd(created.versionId), 409, 'deploy_check_failed');
    assert.match(refused.message, /^the version passed its health check but failed its eval gate; production is unchanged: /);

    const lines = () => stack.worker.output().split('\n').filter((l) => l.includes('Workflow failed') && l.includes('promoteWorkflow'));
    const [line] = await waitFor('the worker logs the end of the promotion', lines, (ls) => ls.length > 0, 15_000);
    assert.match(line!, / DEBUG Workflow failed — evals: every case must pass before the first deploy \(eval run evr_\w+\); failing: never/);
    assert.match(line!, /failureType=deploy_check_failed/);
    assert.deepEqual(lines().filter((l) => / WARN /.test(l)), [], 'no warning for an expected refusal');
    assert.ok(!stack.worker.output().includes('error={}'), 'no error printed as {}');
  });
});
