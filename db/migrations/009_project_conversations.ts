import type { Knex } from 'knex';

/**
 * Project conversations with a manager.
 * - A project conversation is a `conversations` row with `project_id` and no `agent_id` (the
 *   column existed since 003); its turns are run by the project's manager.
 * - A delegation of the manager runs the member agent's turn in a conversation of its own, with
 *   `agent_id` (the member), `project_id` (so its drive is the project's file space) and
 *   `parent_turn_id` + `parent_call_id`: the manager turn and tool call that started it, unique,
 *   so a retried activity finds the conversation it already started.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('conversations', (t) => {
    t.text('parent_turn_id').references('turns.id').onDelete('CASCADE');
    t.text('parent_call_id');
  });
  await db.raw(
    `create unique index conversations_delegation on conversations (parent_turn_id, parent_call_id) where parent_turn_id is not null`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists conversations_delegation');
  await db.schema.alterTable('conversations', (t) => {
    t.dropColumn('parent_call_id');
    t.dropColumn('parent_turn_id');
  });
}
