import type { Knex } from 'knex';

/**
 * Poison files end (docs/knowledge.md, "When a file cannot be read"): an indexing attempt is
 * counted on the file's row before its extraction starts, so a file that killed the worker
 * reading it is known at the next start without reading it again; and the bytes whose extraction
 * failed for good are remembered, so putting the same bytes again does not retry them (putting
 * other bytes does). Both are new nullable or defaulted columns: the release before this one
 * ignores them.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('files', (t) => {
    t.integer('index_attempts').notNullable().defaultTo(0);
    t.text('index_failed_sha256');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('files', (t) => {
    t.dropColumn('index_attempts');
    t.dropColumn('index_failed_sha256');
  });
}
