import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Db } from '../../db/connect';
import type { Erasure } from '../../domain/end-user-erasure';
import { turnWorkflowId } from '../../domain/runs/turn';
import { call } from '../../harness/http';
import { waitFor } from './wait';

/**
 * Every text, character, JSON, array and bytea column of every table in the public schema, and
 * the needles found in it: `table.column: needle`. One statement per column.
 */
export async function scanEveryColumn(db: Db, needles: string[]): Promise<string[]> {
  const columns: Array<{ table_name: string; column_name: string; data_type: string }> = await db('information_schema.columns as c')
    .join('information_schema.tables as t', (j) => j.on('t.table_schema', 'c.table_schema').andOn('t.table_name', 'c.table_name'))
    .where({ 'c.table_schema': 'public', 't.table_type': 'BASE TABLE' })
    .whereIn('c.data_type', ['text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'bytea', 'tsvector'])
    .select('c.table_name', 'c.column_name', 'c.data_type');
  const hits: string[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    const col = `t.${db.client.wrapIdentifier(column)}`;
    const found = type === 'bytea' ? `position(convert_to(n, 'UTF8') in ${col}) > 0` : `position(n in ${col}::text) > 0`;
    const { rows } = (await db.raw(`select n from unnest(?::text[]) n where exists (select 1 from ${db.client.wrapIdentifier(table)} t where ${found})`, [needles])) as {
      rows: Array<{ n: string }>;
    };
    for (const r of rows) hits.push(`${table}.${column}: ${r.n}`);
  }
  return hits;
}

/** Whether Temporal still knows the turn's workflow execution (a deletion completes asynchronously: waits up to 30 s for it to go). */
export async function waitTurnWorkflowsGone(temporal: Client, turnIds: string[]): Promise<string[]> {
  const known = async () => {
    const left: string[] = [];
    for (const turnId of turnIds) {
      try {
        await temporal.workflow.getHandle(turnWorkflowId(turnId)).describe();
        left.push(turnId);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    }
    return left;
  };
  return waitFor('the turn workflows to be deleted', known, (left) => left.length === 0).catch(known);
}

/** GET /v1/erasures/:id until it is done (bounded). */
export async function waitErasureDone(baseURL: string, apiKey: string, erasureId: string, ms = 60_000): Promise<Erasure> {
  return waitFor(
    `erasure ${erasureId} to finish`,
    async () => (await call<Erasure>(baseURL, 'GET', `/v1/erasures/${erasureId}`, { apiKey })).body,
    (e) => e.status === 'done',
    ms,
  );
}
