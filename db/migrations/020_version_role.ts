import type { Knex } from 'knex';

/**
 * The role becomes part of each version (docs/publishing.md: Changing the role): `update` may
 * change it, publishing a version like any other change, so a snapshot must say which role it was
 * published with. `agents.role` stays the agent's current role (what publishing checks);
 * existing versions take their agent's role.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('agent_versions', (t) => {
    t.text('role');
  });
  await db.raw('update agent_versions v set role = a.role from agents a where a.id = v.agent_id');
  await db.schema.alterTable('agent_versions', (t) => {
    t.text('role').notNullable().alter();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('agent_versions', (t) => {
    t.dropColumn('role');
  });
}
