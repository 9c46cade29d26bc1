import type { Knex } from 'knex';

/**
 * Secret and connection values, encrypted at rest (domain/secret-box.ts). Each belongs to an
 * owner: an agent (scope `fixed`) or a conversation (scope `conversation`), named by
 * (`owner_kind`, `owner_id`). The owner is also held in a foreign key (`agent_id` or
 * `conversation_id`), so deleting the agent or the conversation deletes its values.
 * `value` is the sealed bytes: a secret's string, or a connection's JSON
 * `{ accessToken, refreshToken?, expiresAt? }`. What is not secret stays readable for statuses
 * and readiness: `account_label`, `expires_at`, `updated_at`.
 */
export async function up(db: Knex): Promise<void> {
  const owner = (t: Knex.CreateTableBuilder) => {
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('owner_kind').notNullable();
    t.text('owner_id').notNullable();
    t.text('agent_id').references('agents.id').onDelete('CASCADE');
    t.text('conversation_id').references('conversations.id').onDelete('CASCADE');
  };
  const ownerCheck = (table: string) =>
    db.raw(
      `alter table ${table} add constraint ${table}_owner check (
        (owner_kind = 'agent' and agent_id = owner_id and conversation_id is null)
        or (owner_kind = 'conversation' and conversation_id = owner_id and agent_id is null))`,
    );
  await db.schema.createTable('secret_values', (t) => {
    owner(t);
    t.text('name').notNullable();
    t.binary('value').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['owner_kind', 'owner_id', 'name']);
  });
  await ownerCheck('secret_values');
  await db.schema.createTable('connection_values', (t) => {
    owner(t);
    t.text('provider').notNullable();
    t.binary('value').notNullable();
    t.text('account_label');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['owner_kind', 'owner_id', 'provider']);
  });
  await ownerCheck('connection_values');
  // The foreign keys are looked up on every agent or conversation delete.
  for (const table of ['secret_values', 'connection_values']) {
    await db.raw(`create index ${table}_agent on ${table} (agent_id) where agent_id is not null`);
    await db.raw(`create index ${table}_conversation on ${table} (conversation_id) where conversation_id is not null`);
  }
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['connection_values', 'secret_values']) await db.schema.dropTable(table);
}
