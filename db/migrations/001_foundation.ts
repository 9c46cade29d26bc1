import type { Knex } from 'knex';

/** Workspaces, their API keys, and the round-trip probes that prove API → Temporal → worker → Postgres. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('workspaces', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.decimal('credits', 20, 6).notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('hash').notNullable().unique();
    t.text('prefix').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['workspace_id']);
  });
  await db.schema.createTable('probes', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('task_queue').notNullable();
    t.text('worker_identity').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('probes');
  await db.schema.dropTable('api_keys');
  await db.schema.dropTable('workspaces');
}
