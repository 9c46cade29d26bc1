import type { Knex } from 'knex';

/**
 * The role becomes part of each version (docs/publishing.md: Changing the role): `update` may
 * change it, publishing a version like any other change, so a snapshot must say which role it was
 * published with. `agents.role` stays the agent's current role (what publishing checks);
 * existing versions take their agent's role.
 */
// Contract: online-safe only from 021_version_role_default on, whose trigger fills `role` from the
// agent for the previous release's inserts (it never wrote `role`). Between 020 and 021 it was not
// online-safe: the old API's agent creates and updates (new versions) failed on the NOT NULL.
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
