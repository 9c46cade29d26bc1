import type { Knex } from 'knex';

/** Placeholder: filled in by the work of issue 50. */
export async function up(_db: Knex): Promise<void> {}

export async function down(_db: Knex): Promise<void> {}
