import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ms, percentile } from './stats';

/**
 * The legs between a workflow's first workflow task and its first activity's model request, as the
 * worker's SDK saw them (records of bench/lib/worker-legs-hook.ts, BENCH_WORKER_LEGS=1), for our
 * sequential turns beside the bare chain's sequential workflows. Temporal's history has only the
 * task's start and completion and the activity's start; these split what lies between and after.
 */

type LegRecord =
  | { k: 'activation'; at: number; run: string; taskStarted?: number; workflowId?: string }
  | { k: 'completed'; at: number; run: string }
  | { k: 'activityTask'; at: number; workflowId?: string; started?: number }
  | { k: 'activityRun'; at: number; workflowId?: string }
  | { k: 'fetch'; at: number; workflowId: string }
  | { k: 'phase'; run: string; phase: Phase; ms: number };

/** The SDK's steps between an activation and its completion (bench/lib/worker-legs-hook.ts). */
const PHASES = ['decodeActivation', 'createWorkflow', 'activate', 'encodeCompletion'] as const;
type Phase = (typeof PHASES)[number];
const PHASE_NAMES: Record<Phase, string> = {
  decodeActivation: 'of which the payload codec decodes the activation (main thread)',
  createWorkflow: 'of which the workflow is created in the shared V8 context (workflow thread)',
  activate: 'of which the workflow code runs the activation (workflow thread and its messages)',
  encodeCompletion: 'of which the payload codec encodes the completion (main thread)',
};

/** The first of each kind for one workflow: its first task, that task's completion, its first activity. */
interface FirstTask {
  activation?: Extract<LegRecord, { k: 'activation' }>;
  completed?: Extract<LegRecord, { k: 'completed' }>;
  activityTask?: Extract<LegRecord, { k: 'activityTask' }>;
  activityRun?: Extract<LegRecord, { k: 'activityRun' }>;
  fetch?: Extract<LegRecord, { k: 'fetch' }>;
  phases?: Partial<Record<Phase, number>>;
}

/** A workflow's first records (the bare chain's make no model request), and ours' arrival at the model server. */
type Points = Required<Omit<FirstTask, 'fetch' | 'phases'>> & Pick<FirstTask, 'fetch'> & { arrival?: number };

const LEGS: Array<[string, (f: Points) => number | undefined]> = [
  ['first workflow task started (Temporal) → the SDK has the activation (core)', (f) => f.activation.taskStarted && f.activation.at - f.activation.taskStarted],
  ['activation → completion handed to core (SDK: codec, workflow thread)', (f) => f.completed.at - f.activation.at],
  ['completion → Temporal records the activity started (eager dispatch)', (f) => f.activityTask.started && f.activityTask.started - f.completed.at],
  ['activity started (Temporal) → the SDK has the activity task (core)', (f) => f.activityTask.started && f.activityTask.at - f.activityTask.started],
  ['activity task → activity function called (SDK: decode, context)', (f) => f.activityRun.at - f.activityTask.at],
  ['activity function → model request leaves (ours: claim, history, credit check)', (f) => f.fetch && f.fetch.at - f.activityRun.at],
  ['model request leaves → arrives at the model server (AI SDK, undici)', (f) => f.fetch && f.arrival && f.arrival - f.fetch.at],
];

async function records(dir: string): Promise<LegRecord[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
  const texts = await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')));
  return texts.flatMap((t) => t.split('\n').filter(Boolean).map((l) => JSON.parse(l) as LegRecord));
}

function firstTasks(all: LegRecord[]): Map<string, FirstTask> {
  const byWorkflow = new Map<string, FirstTask>();
  const workflowOfRun = new Map<string, string>();
  for (const r of all) {
    let workflowId: string | undefined;
    if (r.k === 'phase') {
      const first = byWorkflow.get(workflowOfRun.get(r.run) ?? '');
      if (first) first.phases = { [r.phase]: r.ms, ...first.phases };
      continue;
    }
    if (r.k === 'activation') {
      if (r.workflowId) workflowOfRun.set(r.run, r.workflowId);
      workflowId = workflowOfRun.get(r.run);
    } else if (r.k === 'completed') workflowId = workflowOfRun.get(r.run);
    else workflowId = r.workflowId;
    if (!workflowId) continue;
    const first = byWorkflow.get(workflowId) ?? {};
    // Records are in each process's order; a workflow's first of each kind is its first task's.
    if (first[r.k] === undefined) Object.assign(first, { [r.k]: r });
    byWorkflow.set(workflowId, first);
  }
  return byWorkflow;
}

function legs(tasks: Map<string, FirstTask>, ids: Iterable<string>, arrivals?: Map<string, number>): number[][] {
  const out: number[][] = [...LEGS, ...PHASES].map(() => []);
  for (const id of ids) {
    const f = tasks.get(id);
    const { activation, completed, activityTask, activityRun } = f ?? {};
    if (!activation || !completed || !activityTask || !activityRun) continue;
    const points: Points = { activation, completed, activityTask, activityRun, fetch: f?.fetch, arrival: arrivals?.get(id) };
    LEGS.forEach(([, leg], i) => {
      const v = leg(points);
      if (v !== undefined) out[i]!.push(v);
    });
    PHASES.forEach((phase, i) => {
      const v = f?.phases?.[phase];
      if (v !== undefined) out[LEGS.length + i]!.push(v);
    });
  }
  return out;
}

/** p50 and p99 of each leg, ours (workflow id → model request's arrival) beside the bare chain's, from the records in `dir`. */
export async function workerLegs(dir: string, ourArrivals: Map<string, number>, bareWorkflowIds: string[]): Promise<string[]> {
  const tasks = firstTasks(await records(dir));
  const ours = legs(tasks, ourArrivals.keys(), ourArrivals);
  const bare = legs(tasks, bareWorkflowIds);
  const cell = (v: number[], p: number) => (v.length ? ms(percentile(v, p)) : '—').padStart(6);
  return [
    `${'ours p50'.padStart(8)} ${'p99'.padStart(6)}  ${'bare p50'.padStart(8)} ${'p99'.padStart(6)}  (n = ${ours[0]!.length} / ${bare[0]!.length})`,
    ...[...LEGS.map(([name]) => name), ...PHASES.map((p) => `  ${PHASE_NAMES[p]}`)].map(
      (name, i) => `${cell(ours[i]!, 50).padStart(8)} ${cell(ours[i]!, 99)}  ${cell(bare[i]!, 50).padStart(8)} ${cell(bare[i]!, 99)}  ${name}`,
    ),
  ];
}
