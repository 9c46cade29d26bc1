/**
 * Preloaded into the worker processes of bench:turns when BENCH_WORKER_LEGS=1 (`--require`, after
 * tsx): records, on the worker's clock, when the SDK receives each workflow activation and
 * activity task from Temporal's core, when it hands a completion back, when an activity function
 * is called and when a model request leaves (`fetch`). With the server's own times carried in
 * those messages (the workflow task's start, the activity's start) this splits the legs between
 * Temporal's history events that bench:turns cannot see otherwise (bench/lib/worker-legs.ts).
 *
 * It wraps the SDK's internals (the core bridge's native calls, the Activity class of
 * @temporalio/worker 1.24): a measuring aid for this bench, never loaded by the product. Each
 * record is a JSON line in BENCH_WORKER_LEGS_DIR/<pid>.jsonl, written once a second.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { coresdk } from '@temporalio/proto';
import { timestampMs } from './proto-time';

interface Bridge {
  native: {
    workerPollWorkflowActivation: (...args: unknown[]) => Promise<Buffer>;
    workerCompleteWorkflowActivation: (worker: unknown, completion: Buffer) => Promise<void>;
    workerPollActivityTask: (...args: unknown[]) => Promise<Buffer>;
  };
}
interface ActivityLike {
  info: { activityType: string; isLocal: boolean; workflowExecution?: { workflowId: string } };
  run(input: unknown): unknown;
}

const dir = process.env.BENCH_WORKER_LEGS_DIR;
const fromRepo = (id: string) => require.resolve(id, { paths: [process.cwd()] });
const now = () => performance.timeOrigin + performance.now();

if (dir) {
  const file = path.join(dir, `${process.pid}.jsonl`);
  const lines: string[] = [];
  const flush = () => {
    if (lines.length > 0) appendFileSync(file, `${lines.splice(0).join('\n')}\n`);
  };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
  const record = (r: object) => lines.push(JSON.stringify(r));

  /* eslint-disable @typescript-eslint/no-require-imports -- the worker's own copies, resolved from the repository */
  const { native } = require(fromRepo('@temporalio/core-bridge')) as Bridge;
  const proto = (require(fromRepo('@temporalio/proto')) as { coresdk: typeof coresdk }).coresdk;
  const { Activity } = require(fromRepo('@temporalio/worker/lib/activity')) as { Activity: { prototype: ActivityLike } };
  const { Context } = require(fromRepo('@temporalio/activity')) as { Context: { current(): { info: ActivityLike['info'] } } };

  const pollActivation = native.workerPollWorkflowActivation;
  native.workerPollWorkflowActivation = async (...args) => {
    const buf = await pollActivation(...args);
    const at = now();
    const a = proto.workflow_activation.WorkflowActivation.decode(new Uint8Array(buf));
    const init = a.jobs.find((j) => j.initializeWorkflow)?.initializeWorkflow;
    record({ k: 'activation', at, run: a.runId, taskStarted: timestampMs(a.timestamp), workflowId: init?.workflowId });
    return buf;
  };
  const complete = native.workerCompleteWorkflowActivation;
  native.workerCompleteWorkflowActivation = async (worker, completion) => {
    const at = now();
    // The SDK passes a length-delimited message.
    const run = proto.workflow_completion.WorkflowActivationCompletion.decodeDelimited(new Uint8Array(completion)).runId;
    await complete(worker, completion);
    record({ k: 'completed', at, run });
  };
  const pollActivity = native.workerPollActivityTask;
  native.workerPollActivityTask = async (...args) => {
    const buf = await pollActivity(...args);
    const at = now();
    const start = proto.activity_task.ActivityTask.decode(new Uint8Array(buf)).start;
    if (start && !start.isLocal) record({ k: 'activityTask', at, workflowId: start.workflowExecution?.workflowId, started: timestampMs(start.startedTime) });
    return buf;
  };
  const run = Activity.prototype.run;
  Activity.prototype.run = function (this: ActivityLike, input: unknown) {
    if (!this.info.isLocal) record({ k: 'activityRun', at: now(), workflowId: this.info.workflowExecution?.workflowId });
    return run.call(this, input);
  };
  // What the SDK does between an activation and its completion, timed per run: the codec's
  // decode, creating the workflow (first task only), the workflow thread's activation, the encode.
  type Method = (...args: unknown[]) => Promise<unknown>;
  const timePhase = (owner: Record<string, unknown>, method: string, runOf: (args: unknown[]) => string | null | undefined) => {
    const original = owner[method] as Method;
    owner[method] = async function (this: unknown, ...args: unknown[]) {
      const begin = now();
      try {
        return await original.apply(this, args);
      } finally {
        record({ k: 'phase', run: runOf(args), phase: method, ms: now() - begin });
      }
    };
  };
  type Proto = { prototype: Record<string, unknown> };
  const activationRun = (args: unknown[]) => (args[0] as { runId?: string | null }).runId;
  const { WorkflowCodecRunner } = require(fromRepo('@temporalio/worker/lib/workflow-codec-runner')) as { WorkflowCodecRunner: Proto };
  const { VMWorkflowThreadProxy } = require(fromRepo('@temporalio/worker/lib/workflow/threaded-vm')) as { VMWorkflowThreadProxy: Proto };
  const { Worker } = require(fromRepo('@temporalio/worker/lib/worker')) as { Worker: Proto };
  /* eslint-enable @typescript-eslint/no-require-imports */
  timePhase(WorkflowCodecRunner.prototype, 'decodeActivation', activationRun);
  timePhase(Worker.prototype, 'createWorkflow', activationRun);
  timePhase(VMWorkflowThreadProxy.prototype, 'activate', activationRun);
  timePhase(WorkflowCodecRunner.prototype, 'encodeCompletion', activationRun);

  const fetch = globalThis.fetch;
  globalThis.fetch = (...args) => {
    let workflowId: string | undefined;
    try {
      workflowId = Context.current().info.workflowExecution?.workflowId;
    } catch {
      // not inside an activity
    }
    if (workflowId) record({ k: 'fetch', at: now(), workflowId });
    return fetch(...args);
  };
}
