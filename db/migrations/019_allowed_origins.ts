import type { Knex } from 'knex';

/**
 * Allowed origins (docs/publishing.md): per agent, the sites where its embed may run and whose
 * pages may call its public chat. One row per agent that has a list; no row is the default, any
 * origin. An agent setting beside the versions (like `agent_credit_caps`): a change applies at once.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('agent_allowed_origins', (t) => {
    t.text('agent_id').primary().references('agents.id').onDelete('CASCADE');
    t.specificType('origins', 'text[]').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('agent_allowed_origins');
}
