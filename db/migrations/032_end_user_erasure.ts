import type { Knex } from 'knex';

/**
 * End users' erasures (docs/security.md, "End users' data: export and erasure").
 * - `end_user_erasures`: one row per `DELETE /v1/end-users/:id`. `end_user_id` is what the
 *   erasure workflow reads (its own input is the erasure id alone, so Temporal's history never
 *   holds the end user's id); it is set to null in the transaction that marks the row `done`.
 * - `end_user_digest` (SHA-256 hex of the id) stays: a second DELETE while one runs finds the
 *   running one by it (one running erasure per workspace and digest, a partial unique index).
 * - `counts`: what has been removed so far, per kind, added to in the same transaction as each
 *   batch's deletes, so a retried batch after a worker's death counts only what it removes.
 * - `end_user_erasure_workflows`: turn workflow executions whose deletion Temporal accepted (it
 *   completes asynchronously, a closed execution's after a delay) and that the erasure has yet to
 *   see gone. Written in the transaction that deletes their turns; the erasure is done only once
 *   none is left. Workflow ids only (`turn-<turnId>`): nothing of the end user.
 * - `turns (conversation_id)`: an erasure lists the turns of the end user's conversations, and
 *   deleting a conversation cascades to its turns; neither had an index to use.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('end_user_erasures', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('end_user_id');
    t.text('end_user_digest').notNullable();
    t.text('status').notNullable().defaultTo('running');
    t.jsonb('counts').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('finished_at', { useTz: true });
  });
  await db.raw(`alter table end_user_erasures add constraint end_user_erasures_status check (status in ('running', 'done'))`);
  await db.raw(`alter table end_user_erasures add constraint end_user_erasures_forgotten check ((status = 'done') = (end_user_id is null))`);
  await db.raw(`create unique index end_user_erasures_one_running on end_user_erasures (workspace_id, end_user_digest) where status = 'running'`);
  await db.schema.createTable('end_user_erasure_workflows', (t) => {
    t.text('erasure_id').notNullable().references('end_user_erasures.id').onDelete('CASCADE');
    t.text('workflow_id').notNullable();
    t.primary(['erasure_id', 'workflow_id']);
  });
  await db.raw('create index turns_conversation on turns (conversation_id)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists turns_conversation');
  await db.schema.dropTable('end_user_erasure_workflows');
  await db.schema.dropTable('end_user_erasures');
}
