import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { createLogger } from '../../infra/logger';
import { installTemporalRuntime } from '../../infra/temporal-runtime';
import { bundleWorkflows } from '../../workers/worker';

const HISTORIES_DIR = path.join(__dirname, '..', 'fixtures', 'histories');

/** Every workflow type a worker runs (workflows/index.ts), each with a history recorded from a real run. */
const WORKFLOW_TYPES = [
  'turnWorkflow',
  'projectTurnWorkflow',
  'triggerRunWorkflow',
  'webhookRunWorkflow',
  'testExpiryWorkflow',
  'promoteWorkflow',
  'domainWorkflow',
  'eraseEndUserWorkflow',
  'evalRunWorkflow',
  'knowledgeIndexWorkflow',
];

function loadHistory(file: string): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as object);
}

/**
 * Workflows in flight when workers are upgraded replay their history on the new code: a change
 * that reorders or renames commands without `patched()` breaks them (docs/operations.md, "Changing
 * workflow code"). Replay needs only the bundle, no Temporal server. Record: RECORD_HISTORIES=1.
 */
describe('recorded workflow histories replay with the current workflow code', () => {
  let workflowBundle: WorkflowBundleWithSourceMap;
  const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json')).sort();

  before(async function () {
    this.timeout(120_000);
    // Quiet: each replay starts and drains a Worker, which Temporal's default logger narrates.
    installTemporalRuntime(createLogger('silent'));
    workflowBundle = await bundleWorkflows();
  });

  it('there is a history for every workflow type', () => {
    assert.deepEqual(WORKFLOW_TYPES.filter((t) => !files.includes(`${t}.json`)), []);
  });

  for (const file of files) {
    it(`${file} replays`, async function () {
      this.timeout(60_000);
      const history = loadHistory(file);
      const type = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
      // <type>.json, the latest recording; <type>.<what>.json, one kept from older code.
      assert.ok(file.startsWith(`${type}.`), `${file} is named after its workflow type, ${type}`);
      await Worker.runReplayHistory({ workflowBundle, replayName: file }, history);
    });
  }

  it('the check is live: a history whose first activity was another type does not replay', async function () {
    this.timeout(60_000);
    const altered = loadHistory('turnWorkflow.json');
    const scheduled = altered.events.find((e) => e.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes!;
    scheduled.activityType = { name: `${scheduled.activityType?.name ?? ''}Renamed` };
    await assert.rejects(Worker.runReplayHistory({ workflowBundle }, altered), DeterminismViolationError);
  });
});
