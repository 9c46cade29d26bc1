import type { Knex } from 'knex';

/**
 * What tools need: full-text search over text files (the knowledge.search tool; `simple`
 * configuration, so any language matches whole words), and the visible step list of a turn.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('files', (t) => {
    t.text('text_content');
  });
  await db.raw(
    `alter table files add column search tsvector generated always as (to_tsvector('simple', coalesce(path, '') || ' ' || coalesce(text_content, ''))) stored`,
  );
  await db.raw('create index files_search_idx on files using gin (search)');
  await db.schema.alterTable('turns', (t) => {
    t.jsonb('steps').notNullable().defaultTo('[]');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('turns', (t) => t.dropColumn('steps'));
  await db.raw('drop index if exists files_search_idx');
  await db.schema.alterTable('files', (t) => {
    t.dropColumn('search');
    t.dropColumn('text_content');
  });
}
