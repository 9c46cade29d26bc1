import type { Knex } from 'knex';

/**
 * Honest billing of turns (docs/http-api.md: Conversations and turns, "Credits").
 * - `turns.reserved`: the credits a running turn holds back from its workspace's balance, so
 *   parallel turns cannot start on money already promised to others; released when it ends.
 * - `turns.agent_id`: the agent whose turn it is (null for a project manager's), so an agent's
 *   spending (its turns' `cost` plus what its running turns reserve) is one indexed sum.
 * - `agent_credit_caps`: an optional ceiling on that spending, per agent.
 * - A turn may now end with status `cancelled` (text column: nothing to alter).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('turns', (t) => {
    t.decimal('reserved', 20, 6).notNullable().defaultTo(0);
    t.text('agent_id');
    t.index(['agent_id']);
  });
  // Turns of agents' conversations started before this migration count towards their agent too.
  await db.raw('update turns t set agent_id = c.agent_id from conversations c where c.id = t.conversation_id');
  await db.raw(`create index turns_running_per_workspace on turns (workspace_id) where status = 'running'`);
  await db.schema.createTable('agent_credit_caps', (t) => {
    t.text('agent_id').primary().references('agents.id').onDelete('CASCADE');
    t.decimal('cap', 20, 6).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('agent_credit_caps');
  await db.raw('drop index turns_running_per_workspace');
  await db.schema.alterTable('turns', (t) => {
    t.dropIndex(['agent_id']);
    t.dropColumn('agent_id');
    t.dropColumn('reserved');
  });
}
