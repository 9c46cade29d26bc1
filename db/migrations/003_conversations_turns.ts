import type { Knex } from 'knex';

/**
 * Conversations, their messages, turns and the turn event log.
 * - One running turn per conversation is enforced by a partial unique index.
 * - `turn_events` is the log SSE streams read; rows are appended under `turns.last_seq` so
 *   sequence numbers are gap-free, and only the activity attempt named in `turns.writer` may append.
 * - An assistant message is unique per turn, so a retried final step writes it once.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('conversations', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('agent_id').references('agents.id').onDelete('CASCADE');
    t.text('project_id').references('projects.id').onDelete('CASCADE');
    t.integer('version');
    t.jsonb('parameters').notNullable().defaultTo('{}');
    t.text('title');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('ended_at', { useTz: true });
    t.index(['agent_id', 'started_at']);
    t.index(['project_id', 'started_at']);
  });
  await db.schema.createTable('turns', (t) => {
    t.text('id').primary();
    t.text('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.text('status').notNullable().defaultTo('running');
    t.integer('last_seq').notNullable().defaultTo(0);
    t.text('writer');
    t.jsonb('usage');
    t.decimal('cost', 20, 6);
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('finished_at', { useTz: true });
  });
  await db.raw(`create unique index turns_one_running_per_conversation on turns (conversation_id) where status = 'running'`);
  await db.schema.createTable('messages', (t) => {
    t.bigIncrements('seq').primary();
    t.text('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    t.text('turn_id').references('turns.id').onDelete('CASCADE');
    t.text('role').notNullable();
    t.text('content').notNullable();
    t.jsonb('attachments');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.unique(['turn_id', 'role']);
    t.index(['conversation_id', 'seq']);
  });
  await db.schema.createTable('turn_events', (t) => {
    t.text('turn_id').notNullable().references('turns.id').onDelete('CASCADE');
    t.integer('seq').notNullable();
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    /** Which model step wrote it (text of a retried step is compared against it). */
    t.integer('step');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['turn_id', 'seq']);
  });
  await db.schema.createTable('credit_debits', (t) => {
    t.text('turn_id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.decimal('amount', 20, 6).notNullable();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['credit_debits', 'turn_events', 'messages', 'turns', 'conversations']) await db.schema.dropTable(table);
}
