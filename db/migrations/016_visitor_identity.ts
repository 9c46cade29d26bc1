import type { Knex } from 'knex';

/**
 * Verified visitor identity.
 * - `visitor_identities`: per agent, not versioned (a change takes effect at once): `mode`
 *   (`anonymous`, `verified`, `either`) and the identity secret visitors' tokens are signed with,
 *   sealed under SECRETS_KEY; after a rotation the previous secret still verifies until
 *   `previous_valid_until`.
 * - `conversations.visitor_verified`: the visitor proved, with a token signed by that secret, to
 *   be `end_user_id`. Only then does a public or test conversation see that end user's values. A
 *   verified and an anonymous visitor of the same id have separate sessions, so the session
 *   indexes gain the flag.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('visitor_identities', (t) => {
    t.text('agent_id').primary().references('agents.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.text('mode').notNullable().defaultTo('anonymous');
    t.binary('secret_sealed');
    t.timestamp('secret_created_at', { useTz: true });
    t.binary('previous_secret_sealed');
    t.timestamp('previous_valid_until', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(`alter table visitor_identities add constraint visitor_identities_mode check (mode in ('anonymous', 'verified', 'either'))`);
  await db.schema.alterTable('conversations', (t) => {
    t.boolean('visitor_verified').notNullable().defaultTo(false);
  });
  await db.raw('drop index conversations_public_session');
  await db.raw('drop index conversations_test_session');
  await db.raw(
    `create unique index conversations_public_session on conversations (agent_id, end_user_id, visitor_verified) where channel = 'public' and ended_at is null`,
  );
  await db.raw(
    `create unique index conversations_test_session on conversations (test_deployment_id, end_user_id, visitor_verified) where channel = 'test' and ended_at is null`,
  );
}

export async function down(db: Knex): Promise<void> {
  // Open verified sessions would clash with anonymous ones of the same id under the old indexes: they end.
  await db('conversations').where({ visitor_verified: true }).whereNotNull('channel').whereNull('ended_at').update({ ended_at: db.fn.now() });
  await db.raw('drop index conversations_public_session');
  await db.raw('drop index conversations_test_session');
  await db.raw(`create unique index conversations_public_session on conversations (agent_id, end_user_id) where channel = 'public' and ended_at is null`);
  await db.raw(`create unique index conversations_test_session on conversations (test_deployment_id, end_user_id) where channel = 'test' and ended_at is null`);
  await db.schema.alterTable('conversations', (t) => t.dropColumn('visitor_verified'));
  await db.schema.dropTable('visitor_identities');
}
