import type { Knex } from 'knex';

/**
 * Agents and their immutable numbered versions, projects and members, and file spaces.
 * An agent's configuration lives only in its versions (`config` jsonb); `agents.current_version`
 * points at the newest. Deleted agent ids are kept in `retired_agent_ids` so an id is never reused.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('agents', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('role').notNullable();
    t.integer('current_version').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['workspace_id', 'created_at']);
  });
  await db.schema.createTable('agent_versions', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.integer('number').notNullable();
    t.jsonb('config').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.unique(['agent_id', 'number']);
  });
  await db.schema.createTable('retired_agent_ids', (t) => {
    t.text('id').primary();
    t.timestamp('retired_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('projects', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('goal');
    t.text('manager_instructions');
    t.text('grade').notNullable();
    t.text('status').notNullable().defaultTo('active');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['workspace_id', 'created_at']);
  });
  await db.schema.createTable('project_members', (t) => {
    t.text('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.timestamp('added_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['project_id', 'agent_id']);
  });
  // One table for every file space; `space` is e.g. `knowledge:agt_…` or `drive:cnv_…`.
  await db.schema.createTable('files', (t) => {
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('space').notNullable();
    t.text('path').notNullable();
    t.text('mime_type').notNullable();
    t.integer('size').notNullable();
    t.binary('content').notNullable();
    t.timestamp('modified_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['space', 'path']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['files', 'project_members', 'projects', 'retired_agent_ids', 'agent_versions', 'agents']) {
    await db.schema.dropTable(table);
  }
}
