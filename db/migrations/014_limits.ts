import type { Knex } from 'knex';

/**
 * Limits and quotas (docs/limits.md).
 * - `workspaces.diagnostics_allowed`: the operator flag that lets a workspace run the diagnostics probe.
 * - `leases`: concurrent things per API key (open event streams, uploads in flight), counted in
 *   PostgreSQL so every API replica sees the same count: a holder has `slot`s 0…limit−1 and a lease
 *   takes a free one (the primary key decides races, without a lock). A lease is renewed while its
 *   holder lives and expires by itself when a replica dies holding it.
 * - (counting a workspace's running turns at every ask uses 012's index turns_running_per_workspace).
 * - an index for pruning probe rows by age, and one for summing a workspace's stored bytes (its quota).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('workspaces', (t) => {
    t.boolean('diagnostics_allowed').notNullable().defaultTo(false);
  });
  await db.schema.createTable('leases', (t) => {
    t.text('holder').notNullable();
    t.text('kind').notNullable();
    t.integer('slot').notNullable();
    t.text('id').notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['holder', 'kind', 'slot']);
  });
  // The running-turns count per workspace uses turns_running_per_workspace, made by 012_turn_billing.
  await db.schema.alterTable('probes', (t) => {
    t.index(['created_at']);
  });
  await db.schema.alterTable('files', (t) => {
    t.index(['workspace_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('files', (t) => {
    t.dropIndex(['workspace_id']);
  });
  await db.schema.alterTable('probes', (t) => {
    t.dropIndex(['created_at']);
  });
  await db.schema.dropTable('leases');
  await db.schema.alterTable('workspaces', (t) => {
    t.dropColumn('diagnostics_allowed');
  });
}
