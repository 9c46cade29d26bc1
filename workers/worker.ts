import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  bundleWorkflowCode,
  type InjectedSinks,
  type NativeConnection,
  Worker,
  type WorkflowBundleOption,
  type WorkflowBundlePath,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { Activities } from '../activities';
import type { Repositories } from '../db/repositories';
import type { WorkerLivenessRepository } from '../db/repositories/worker-liveness';
import type { Logger } from '../infra/logger';
import type { OutcomeSinks } from '../workflows/outcome-sink';
import { noSpans, type Spans } from '../infra/tracing/spans';
import type { WorkerTracing } from '../infra/tracing/temporal';
import { requestIdActivityInterceptor } from './request-id-interceptor';
import { startOrphanSweeper } from './orphan-sweeper';
import { type RetentionConfig, retentionFromConfig, startRetentionPruner } from './retention-pruner';
import { type WorkerTuning, workerOptions } from '../config/worker-tuning';

interface WorkerSetOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueues: { turns: string; ops: string };
  activities: Activities;
  /** Where workflows report their outcomes (the worker's metrics, workers/metrics.ts). */
  sinks: InjectedSinks<OutcomeSinks>;
  /** The name this process polls under; the activities record their attempts under it too. */
  identity: string;
  /** Liveness stamps and orphaned attempts (workers/orphan-sweeper.ts). */
  liveness: WorkerLivenessRepository;
  /** Pruning of old event log, probe and audit rows (workers/retention-pruner.ts). */
  pruning: { repos: Repositories; config: RetentionConfig };
  logger: Logger;
  /** Encrypts payloads (PAYLOAD_KEY, infra/payload-codec.ts); the API's client must use the same ring. */
  payloadCodec?: PayloadCodec;
  /** A prebuilt bundle (tests share one); built here when absent. */
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** Tracing on (infra/tracing): activity spans, the workflow spans' sink, and the traced bundle. */
  tracing?: WorkerTracing;
  /** Where the request id of an activity is added as an attribute (the activity's span); `noSpans` when off. */
  spans?: Spans;
  /** Cache size and the like (WORKER_* variables, defaults in config/worker-tuning.ts). */
  tuning: WorkerTuning;
}

export interface WorkerSet {
  identity: string;
  /** A Temporal client over the workers' connection (liveness sweep, readiness checks). */
  client: Client;
  /** Whether every worker still polls (readiness). */
  polling(): boolean;
  /** Resolves when both workers have drained and stopped. */
  shutdown(): Promise<void>;
  /** Resolves (or rejects) when the workers stop for any reason. */
  done: Promise<void>;
}


/**
 * The workflow interceptor modules of a bundle: the request id's and the failure log's always
 * (beside the workflows, with their extension: the sources' when bundling from them), and
 * OpenTelemetry's when traced — a bundle without it runs no tracing code in the sandbox at all.
 */
function workflowInterceptorModules(workflowsPath: string, traced: boolean): string[] {
  const beside = (name: string) => path.join(path.dirname(workflowsPath), `${name}${path.extname(workflowsPath)}`);
  const ours = [beside('request-id-interceptors'), beside('failure-log-interceptors')];
  return traced ? [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'), ...ours] : ours;
}

/**
 * Bundles the deterministic workflow code once; both task queues run the same bundle. `npm run
 * build` calls this too (with the TypeScript sources' path), once plain and once traced, and
 * writes both bundles to files.
 */
export function bundleWorkflows(workflowsPath = require.resolve('../workflows'), traced = false): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: workflowInterceptorModules(workflowsPath, traced), logger: quietBundlerLogger });
}

/**
 * Where `npm run build` (scripts/build-server.js) puts the bundles and what it records about them.
 * @public The script requires them from build/, where knip does not look.
 */
export const PREBUILT_BUNDLE_FILE = 'workflow-bundle.js';
/** @public As above. */
export const PREBUILT_TRACED_BUNDLE_FILE = 'workflow-bundle-traced.js';
/** @public As above. */
export const BUILD_INFO_FILE = 'build-info.json';

/**
 * The workflow bundle prebuilt by `npm run build`, when this module is the compiled one in
 * build/workers/ (bin/hosted-agents.js runs build/ only when it is not older than the sources, and
 * the bundle is part of the same build) and the bundle was made by the @temporalio/worker version
 * installed now (Temporal requires the same version at bundling and at Worker.create). Otherwise
 * undefined: the caller bundles, as running from the sources always does.
 */
function prebuiltWorkflowBundle(traced: boolean): WorkflowBundlePath | undefined {
  if (!__filename.endsWith('.js')) return undefined;
  const buildDir = path.resolve(__dirname, '..');
  try {
    const info = JSON.parse(readFileSync(path.join(buildDir, BUILD_INFO_FILE), 'utf8')) as { temporalWorkerVersion?: string };
    const installed = (JSON.parse(readFileSync(require.resolve('@temporalio/worker/package.json'), 'utf8')) as { version: string }).version;
    const codePath = path.join(buildDir, traced ? PREBUILT_TRACED_BUNDLE_FILE : PREBUILT_BUNDLE_FILE);
    return info.temporalWorkerVersion === installed && existsSync(codePath) ? { codePath } : undefined;
  } catch {
    return undefined;
  }
}

const noop = () => undefined;
const quietBundlerLogger = {
  log: noop, trace: noop, debug: noop, info: noop,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

/** Polls the `turns` and `ops` task queues; workers scale out on them (docs/operations.md: Production layout). */
export async function startWorkers(opts: WorkerSetOptions): Promise<WorkerSet> {
  const traced = opts.tracing !== undefined;
  const workflowBundle: WorkflowBundleOption = opts.workflowBundle ?? prebuiltWorkflowBundle(traced) ?? (await bundleWorkflows(undefined, traced));
  // The tracing interceptor first: the request id's then runs inside the activity's span.
  const activityInterceptors = [...(opts.tracing?.activity ?? []), requestIdActivityInterceptor(opts.spans ?? noSpans)];
  const { identity } = opts;
  const dataConverter = opts.payloadCodec ? { dataConverter: { payloadCodecs: [opts.payloadCodec] } } : {};
  const workers = await Promise.all(
    [opts.taskQueues.turns, opts.taskQueues.ops].map((taskQueue) =>
      Worker.create({
        connection: opts.connection,
        namespace: opts.namespace,
        taskQueue,
        identity,
        workflowBundle,
        activities: opts.activities,
        interceptors: { activity: activityInterceptors },
        // The ops outcomes (metrics) always; the workflow span exporter when tracing is on.
        sinks: { ...opts.sinks, ...opts.tracing?.sinks },
        ...dataConverter,
        ...workerOptions(opts.tuning),
      }),
    ),
  );
  // Stamps before the first poll: an attempt recorded under an identity that never stamped is an orphan.
  const client = new Client({ connection: opts.connection, namespace: opts.namespace, ...dataConverter });
  const sweeper = await startOrphanSweeper({
    liveness: opts.liveness,
    client,
    identity,
    logger: opts.logger,
  });
  const pruner = startRetentionPruner({ repos: opts.pruning.repos, ...retentionFromConfig(opts.pruning.config), logger: opts.logger });
  // However the workers end, the stamps end with them: a process that no longer polls is not alive.
  const done = Promise.all(workers.map((w) => w.run()))
    .then(() => undefined)
    .finally(() => Promise.all([sweeper.stop(), pruner.stop()]));
  return {
    identity,
    client,
    polling: () => workers.every((w) => w.getState() === 'RUNNING'),
    done,
    async shutdown() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await done;
    },
  };
}
