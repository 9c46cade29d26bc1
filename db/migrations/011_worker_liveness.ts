import type { Knex } from 'knex';

/**
 * Lets a live worker fail, at once, the activity attempts of a worker that died (SIGKILL, OOM,
 * lost host) instead of leaving them to their heartbeat timeout (docs/operations.md: Production layout).
 * - `worker_liveness`: each worker process stamps its row twice a second.
 * - `activity_attempts`: the running attempts of long activities (model calls, tool calls), with
 *   the Temporal task token that completes them and the worker that runs them.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('worker_liveness', (t) => {
    t.text('identity').primary();
    t.timestamp('seen_at', { useTz: true }).notNullable();
  });
  await db.schema.createTable('activity_attempts', (t) => {
    t.binary('task_token').primary();
    t.text('worker').notNullable().index();
    t.text('workflow_id').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('activity_attempts');
  await db.schema.dropTable('worker_liveness');
}
