import type { Knex } from 'knex';

/**
 * Webhook triggers: one row per `webhook` trigger of an agent's latest version.
 * - `token_hash`: SHA-256 of the inbound URL's token, what an inbound POST is looked up by;
 *   `token_sealed`: the token under SECRETS_KEY, so the agent record can show its URL again.
 * - `trigger_index`: where the trigger stands in the latest version's `triggers` (kept in step
 *   by every publish, in the publish's transaction).
 * - `signing_secret_sealed`: the `whsec_…` secret outbound deliveries are signed with, sealed;
 *   null until one is minted.
 * Rows go with the agent (cascade): deleting it kills its URLs at once.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhooks', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.integer('trigger_index').notNullable();
    t.text('token_hash').notNullable().unique();
    t.binary('token_sealed').notNullable();
    t.binary('signing_secret_sealed');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('url_rotated_at', { useTz: true });
    t.timestamp('secret_rotated_at', { useTz: true });
    t.index(['agent_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('webhooks');
}
