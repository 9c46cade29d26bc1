import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import pg from 'pg';
import type { ModelServer } from '../../harness/model-servers/openai-server';
import { timestampMs } from './proto-time';
import { ms, percentile } from './stats';

/**
 * Where the time to first text goes, for sequential turns: the client's clock, the model server's
 * (in this process), PostgreSQL's row times (`turns.started_at` is the ask transaction's start,
 * `turn_events.at` the append transaction's start) and Temporal's history event times — all one
 * machine's clock.
 */

const epochNow = () => performance.timeOrigin + performance.now();

/** Wraps the model server's request log so that the arrival time of the latest request can be read. */
export function watchModelArrivals(model: ModelServer): () => number | undefined {
  let last: number | undefined;
  const requests = model.requests;
  const push = requests.push.bind(requests);
  requests.push = (...items) => {
    last = epochNow();
    return push(...items);
  };
  return () => last;
}

export interface TimedTurn {
  turnId: string;
  requestAt: number;
  modelRequestAt: number;
  firstTextAt: number;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;


const STAGES = [
  'HTTP request → ask transaction begins (API: auth, routing, validation)',
  'ask transaction → workflow started (API: transaction, StartWorkflowExecution)',
  'workflow started → first workflow task picked up (Temporal → worker)',
  'workflow task picked up → completed (worker: workflow code)',
  'workflow task completed → activity picked up (Temporal → worker)',
  'activity picked up → model request arrives (worker: claim, load turn, history)',
  'model request → first text row written (model first delta + text batching)',
  'first text row → client has the text event (commit, NOTIFY, API read, SSE)',
] as const;

/** Temporal's own points in a history: started, first workflow task picked up and completed, first activity picked up. */
const ENGINE_POINTS: Array<(e: HistoryEvent) => boolean> = [
  (e) => e.workflowExecutionStartedEventAttributes != null,
  (e) => e.workflowTaskStartedEventAttributes != null,
  (e) => e.workflowTaskCompletedEventAttributes != null,
  (e) => e.activityTaskStartedEventAttributes != null,
];
/** Where those points' legs sit in STAGES. */
const ENGINE_STAGE_FROM = 2;

async function enginePoints(client: Client, workflowId: string): Promise<Array<number | undefined>> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return ENGINE_POINTS.map((has) => timestampMs(events.find(has)?.eventTime));
}

const lines = (names: readonly string[], stages: number[][]) =>
  names.map((name, i) => `${ms(percentile(stages[i]!, 50)).padStart(7)} ${ms(percentile(stages[i]!, 99)).padStart(7)}  ${name}`);

/** p50 and p99 of each stage; the stages of one turn add up to its time to first text. */
export async function timeBreakdown(turns: TimedTurn[], databaseUrl: string, temporalAddress: string): Promise<string[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const { rows } = await db.query<{ id: string; started: number; first_text: number | null }>(
      `select t.id, extract(epoch from t.started_at)::float8 * 1000 as started,
              (select extract(epoch from e.at)::float8 * 1000 from turn_events e
                where e.turn_id = t.id and e.type = 'text' order by e.seq limit 1) as first_text
         from turns t where t.id = any($1)`,
      [turns.map((t) => t.turnId)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const stages: number[][] = STAGES.map(() => []);
    for (const turn of turns) {
      const row = byId.get(turn.turnId);
      const points = [turn.requestAt, row?.started, ...(await enginePoints(client, `turn-${turn.turnId}`)), turn.modelRequestAt, row?.first_text ?? undefined, turn.firstTextAt];
      if (points.some((p) => p === undefined || p === null)) continue;
      const p = points as number[];
      for (let i = 0; i < STAGES.length; i++) stages[i]!.push(p[i + 1]! - p[i]!);
    }
    return lines(STAGES, stages);
  } finally {
    await db.end();
    await connection.close();
  }
}

/**
 * The same Temporal legs for the bare chain's workflows run one at a time: what the engine alone
 * takes between the start and the first activity on this machine, beside ours.
 */
export async function engineLegs(workflowIds: string[], temporalAddress: string): Promise<string[]> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const names = STAGES.slice(ENGINE_STAGE_FROM, ENGINE_STAGE_FROM + ENGINE_POINTS.length - 1);
    const stages: number[][] = names.map(() => []);
    for (const id of workflowIds) {
      const points = await enginePoints(client, id);
      if (points.some((p) => p === undefined)) continue;
      const p = points as number[];
      for (let i = 0; i < names.length; i++) stages[i]!.push(p[i + 1]! - p[i]!);
    }
    return lines(names, stages);
  } finally {
    await connection.close();
  }
}
