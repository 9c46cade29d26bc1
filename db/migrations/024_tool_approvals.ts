import type { Knex } from 'knex';

/**
 * Tool calls waiting for a person's decision (docs/approvals.md): one row per call of a turn that
 * needs approval, keyed by (turn, tool call) so a re-run activity finds the same row. `status`
 * moves once, from `pending`, by a conditional update: the first decision (or the timeout, or
 * the end of the turn) stands. `announced` is set with the outcome's `approval` event, so it is
 * appended once. Number 023 is taken by evaluation runs.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('tool_approvals', (t) => {
    t.text('id').primary();
    t.text('turn_id').notNullable().references('turns.id').onDelete('CASCADE');
    t.text('tool_call_id').notNullable();
    t.text('workspace_id').notNullable();
    t.text('conversation_id').notNullable();
    t.text('agent_id').notNullable();
    t.text('tool').notNullable();
    t.jsonb('arguments').notNullable();
    t.text('approver').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.text('note');
    t.integer('timeout_ms').notNullable();
    t.boolean('announced').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('decided_at', { useTz: true });
    t.unique(['turn_id', 'tool_call_id']);
  });
  // Ending a turn closes its pending approvals: found by this index, which holds only those.
  await db.raw(`create index tool_approvals_pending_by_turn on tool_approvals (turn_id) where status = 'pending'`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('tool_approvals');
}
