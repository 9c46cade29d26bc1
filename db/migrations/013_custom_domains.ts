import type { Knex } from 'knex';

/**
 * Custom domains with managed certificates (docs/publishing.md: Custom domains).
 * - `custom_domains`: one row per host name (the primary key: a name is attached to one agent at
 *   most), its status, and once issued its certificate chain (public) and private key (sealed
 *   under SECRETS_KEY, bound to the row) with its validity and serial.
 * - `acme_challenges`: HTTP-01 answers, written by the worker that runs the order and read by
 *   whichever API replica the CA reaches.
 * - `acme_accounts`: one ACME account per directory URL, its key sealed.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('custom_domains', (t) => {
    t.text('domain').primary();
    t.text('id').notNullable().unique();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('status').notNullable();
    t.text('failure');
    t.text('cert_pem');
    t.binary('key_sealed');
    t.timestamp('not_before', { useTz: true });
    t.timestamp('not_after', { useTz: true });
    t.text('cert_serial');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['workspace_id']);
    t.index(['agent_id']);
  });
  await db.schema.createTable('acme_challenges', (t) => {
    t.text('token').primary();
    t.text('domain').notNullable().references('custom_domains.domain').onDelete('CASCADE');
    t.text('key_authorization').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('acme_accounts', (t) => {
    t.text('directory_url').primary();
    t.binary('key_sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('acme_accounts');
  await db.schema.dropTable('acme_challenges');
  await db.schema.dropTable('custom_domains');
}
