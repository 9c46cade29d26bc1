import type { Knex } from 'knex';

/**
 * Schedule and interval triggers (Temporal Schedules).
 * - `conversations.trigger`: the trigger that started the conversation, `{ kind, index, run }`
 *   (`run`: the Temporal workflow id of the trigger run, unique, so a retried activity finds the
 *   conversation it already started).
 * - `agents.trigger_schedules`: the Schedules last reconciled for the agent, `[{ id, hash }]`, so a
 *   publish updates only what changed and deletes what is gone (and deleting the agent deletes them).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('conversations', (t) => {
    t.jsonb('trigger');
  });
  await db.raw(`create unique index conversations_trigger_run on conversations ((trigger->>'run')) where trigger is not null`);
  await db.schema.alterTable('agents', (t) => {
    t.jsonb('trigger_schedules').notNullable().defaultTo('[]');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('agents', (t) => t.dropColumn('trigger_schedules'));
  await db.raw('drop index if exists conversations_trigger_run');
  await db.schema.alterTable('conversations', (t) => t.dropColumn('trigger'));
}
