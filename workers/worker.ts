import { bundleWorkflowCode, type NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Activities } from '../activities';
import { workerIdentity } from './identity';

export interface WorkerSetOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueues: { turns: string; ops: string };
  activities: Activities;
  /** A prebuilt bundle (tests share one); built here when absent. */
  workflowBundle?: WorkflowBundleWithSourceMap;
}

export interface WorkerSet {
  identity: string;
  /** Resolves when both workers have drained and stopped. */
  shutdown(): Promise<void>;
  /** Resolves (or rejects) when the workers stop for any reason. */
  done: Promise<void>;
}


/** Bundles the deterministic workflow code once; both task queues run the same bundle. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietBundlerLogger });
}

const noop = () => undefined;
const quietBundlerLogger = {
  log: noop, trace: noop, debug: noop, info: noop,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

/** Polls the `turns` and `ops` task queues (ARCHITECTURE.md: how it scales past one machine). */
export async function startWorkers(opts: WorkerSetOptions): Promise<WorkerSet> {
  const workflowBundle = opts.workflowBundle ?? (await bundleWorkflows());
  const identity = workerIdentity();
  const workers = await Promise.all(
    [opts.taskQueues.turns, opts.taskQueues.ops].map((taskQueue) =>
      Worker.create({
        connection: opts.connection,
        namespace: opts.namespace,
        taskQueue,
        identity,
        workflowBundle,
        activities: opts.activities,
      }),
    ),
  );
  const done = Promise.all(workers.map((w) => w.run())).then(() => undefined);
  return {
    identity,
    done,
    async shutdown() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await done;
    },
  };
}
