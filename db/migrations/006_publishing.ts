import type { Knex } from 'knex';

/**
 * Publishing.
 * - `agents` gains its production pointer (`prod_version`, moved in one statement by promotion
 *   and rollback), its host label (`slug`, fixed at the first prod deploy, unique), and its
 *   publishable token: SHA-256 for lookup and the token sealed under SECRETS_KEY so the owner can
 *   read it back — a database leak reveals neither.
 * - `agent_versions.deployed_at`: when the version last became production.
 * - `test_deployments`: ephemeral hosts of one version; at most one live per version.
 * - Conversations started by public chat carry their end user and channel; one open public
 *   conversation per (agent, user id), one per (test deployment, user id).
 * - `rate_limits`: the shared counters of rate-limiter-flexible (its own table shape).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('agents', (t) => {
    t.integer('prod_version');
    t.text('slug').unique();
    t.text('public_token_hash').unique();
    t.binary('public_token_sealed');
  });
  await db.schema.alterTable('agent_versions', (t) => {
    t.timestamp('deployed_at', { useTz: true });
  });
  await db.schema.createTable('test_deployments', (t) => {
    t.text('id').primary();
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('version_id').notNullable().references('agent_versions.id').onDelete('CASCADE');
    t.integer('version_number').notNullable();
    t.text('host_label').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('retired_at', { useTz: true });
    t.index(['agent_id']);
  });
  await db.raw('create unique index test_deployments_one_live_per_version on test_deployments (version_id) where retired_at is null');
  await db.schema.alterTable('conversations', (t) => {
    t.text('channel');
    t.text('end_user_id');
    t.text('end_user_name');
    t.text('end_user_email');
    t.text('test_deployment_id').references('test_deployments.id').onDelete('CASCADE');
  });
  await db.raw(
    `create unique index conversations_public_session on conversations (agent_id, end_user_id) where channel = 'public' and ended_at is null`,
  );
  await db.raw(
    `create unique index conversations_test_session on conversations (test_deployment_id, end_user_id) where channel = 'test' and ended_at is null`,
  );
  await db.raw(`create table rate_limits (key varchar(255) primary key, points integer not null default 0, expire bigint)`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('rate_limits');
  await db.raw('drop index if exists conversations_test_session');
  await db.raw('drop index if exists conversations_public_session');
  await db.schema.alterTable('conversations', (t) => {
    for (const c of ['channel', 'end_user_id', 'end_user_name', 'end_user_email', 'test_deployment_id']) t.dropColumn(c);
  });
  await db.schema.dropTable('test_deployments');
  await db.schema.alterTable('agent_versions', (t) => t.dropColumn('deployed_at'));
  await db.schema.alterTable('agents', (t) => {
    for (const c of ['prod_version', 'slug', 'public_token_hash', 'public_token_sealed']) t.dropColumn(c);
  });
}
