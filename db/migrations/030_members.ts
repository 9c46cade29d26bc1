import type { Knex } from 'knex';

/**
 * People, not just keys (issue 50; docs/security.md, "Members, roles and sign-in"):
 *
 * - `api_keys` gain a `role` (every existing key becomes `owner`, so nothing breaks), a `name`
 *   and `last_used_at`.
 * - `accounts`: a person, by e-mail (stored lower-cased, unique), with an argon2id password hash
 *   when they set one. One account may be a member of several workspaces.
 * - `members`: an account's role in a workspace. At least one owner remains (services/members.ts).
 * - `member_links`: one-time links — invites, sign-in links, password resets — stored as the
 *   SHA-256 of their token, with an expiry and the time they were used.
 * - `sessions`: server-side sessions behind the `ha_session` cookie, stored as the SHA-256 of
 *   the cookie's token, with idle (`last_seen_at`) and absolute (`expires_at`) expiry and the
 *   synchronizer CSRF token.
 * - `sign_in_failures`: one row per failed password sign-in (and per reset request, without an
 *   e-mail), counted per e-mail and per client address over a window: past the limits a sign-in is
 *   refused before any hash is computed (services/password-sign-in.ts). A success clears its
 *   e-mail's rows for the per-account count only, so it does not reset the address's count.
 * - `workspaces.sign_in_domains`: e-mail domains whose verified addresses may join by OIDC as viewers.
 * - `conversations.started_by`: the member or key that started a conversation through the
 *   workspace API (a viewer reads only the teammate conversations they started).
 * New tables and defaulted or nullable columns: the release before this one ignores them.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('api_keys', (t) => {
    t.text('role').notNullable().defaultTo('owner');
    t.text('name').notNullable().defaultTo('');
    t.timestamp('last_used_at', { useTz: true });
  });
  await db.raw(`alter table api_keys add constraint api_keys_role_check check (role in ('owner','builder','reviewer','viewer'))`);
  await db.schema.alterTable('workspaces', (t) => {
    t.specificType('sign_in_domains', 'text[]').notNullable().defaultTo('{}');
  });
  await db.schema.alterTable('conversations', (t) => {
    t.text('started_by');
  });
  await db.schema.createTable('accounts', (t) => {
    t.text('id').primary();
    t.text('email').notNullable().unique();
    t.text('name').notNullable().defaultTo('');
    t.text('password_hash');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(`alter table accounts add constraint accounts_email_lower check (email = lower(email))`);
  await db.schema.createTable('members', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_seen_at', { useTz: true });
    t.unique(['workspace_id', 'account_id']);
    t.index(['account_id']);
  });
  await db.raw(`alter table members add constraint members_role_check check (role in ('owner','builder','reviewer','viewer'))`);
  await db.schema.createTable('member_links', (t) => {
    t.text('id').primary();
    t.text('token_hash').notNullable().unique();
    t.text('kind').notNullable();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('email').notNullable();
    /** The role an invite grants; null for sign-in and reset links. */
    t.text('role');
    /** The member or key that made it. */
    t.text('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['workspace_id', 'created_at']);
  });
  await db.raw(`alter table member_links add constraint member_links_kind_check check (kind in ('invite','sign_in','reset'))`);
  await db.schema.createTable('sessions', (t) => {
    t.text('id').primary();
    t.text('token_hash').notNullable().unique();
    t.text('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('csrf_token').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('ended_at', { useTz: true });
    t.text('ip');
    t.text('user_agent');
    t.index(['member_id']);
  });
  await db.schema.createTable('sign_in_failures', (t) => {
    t.bigIncrements('id');
    /** The e-mail the attempt named, lower-cased; null for a reset request (it counts per address only). */
    t.text('email');
    t.text('ip').notNullable();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    /** Set by a successful sign-in of this e-mail: the row then counts only for its address. */
    t.boolean('account_cleared').notNullable().defaultTo(false);
    t.index(['email', 'at']);
    t.index(['ip', 'at']);
    t.index(['at']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['sign_in_failures', 'sessions', 'member_links', 'members', 'accounts']) await db.schema.dropTable(table);
  await db.schema.alterTable('conversations', (t) => t.dropColumn('started_by'));
  await db.schema.alterTable('workspaces', (t) => t.dropColumn('sign_in_domains'));
  await db.raw('alter table api_keys drop constraint api_keys_role_check');
  await db.schema.alterTable('api_keys', (t) => {
    t.dropColumn('role');
    t.dropColumn('name');
    t.dropColumn('last_used_at');
  });
}
