import type { Knex } from 'knex';

/**
 * OAuth connections and end users.
 * - `oauth_states`: one row per consent URL handed out. `state_hash` is the SHA-256 of the `state`
 *   sent to the provider (the state itself is never stored); `code_verifier` is the sealed PKCE
 *   verifier. The callback consumes a row once (`used_at`), before `expires_at`.
 * - `secret_values`/`connection_values` gain a third owner kind, `end_user`: values that belong
 *   to an end user of the workspace (`end_user_id`), with `owner_id` = `<workspace_id>:<end_user_id>`
 *   so the primary key stays unique across workspaces.
 * - `connection_values.refreshable`: a refresh token is sealed in the value (readable without
 *   opening it); `error`: why the value stopped working (a refused refresh), shown in statuses.
 * - `conversations.end_user_id` is indexed: `endUser.conversations()` lists by it.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('oauth_states', (t) => {
    t.text('state_hash').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('owner_kind').notNullable();
    t.text('owner_id').notNullable();
    t.text('end_user_id');
    t.text('provider').notNullable();
    t.binary('code_verifier').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
  });
  await db.raw('create index oauth_states_expires on oauth_states (expires_at)');
  for (const table of ['secret_values', 'connection_values']) {
    await db.schema.alterTable(table, (t) => {
      t.text('end_user_id');
    });
    await db.raw(`alter table ${table} drop constraint ${table}_owner`);
    await db.raw(
      `alter table ${table} add constraint ${table}_owner check (
        (owner_kind = 'agent' and agent_id = owner_id and conversation_id is null and end_user_id is null)
        or (owner_kind = 'conversation' and conversation_id = owner_id and agent_id is null and end_user_id is null)
        or (owner_kind = 'end_user' and end_user_id is not null and owner_id = workspace_id || ':' || end_user_id
            and agent_id is null and conversation_id is null))`,
    );
  }
  await db.schema.alterTable('connection_values', (t) => {
    t.boolean('refreshable').notNullable().defaultTo(false);
    t.text('error');
  });
  await db.raw('create index conversations_end_user on conversations (workspace_id, end_user_id) where end_user_id is not null');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop index if exists conversations_end_user');
  await db.schema.alterTable('connection_values', (t) => {
    t.dropColumn('refreshable');
    t.dropColumn('error');
  });
  for (const table of ['secret_values', 'connection_values']) {
    await db(table).where({ owner_kind: 'end_user' }).delete();
    await db.raw(`alter table ${table} drop constraint ${table}_owner`);
    await db.schema.alterTable(table, (t) => t.dropColumn('end_user_id'));
    await db.raw(
      `alter table ${table} add constraint ${table}_owner check (
        (owner_kind = 'agent' and agent_id = owner_id and conversation_id is null)
        or (owner_kind = 'conversation' and conversation_id = owner_id and agent_id is null))`,
    );
  }
  await db.schema.dropTable('oauth_states');
}
